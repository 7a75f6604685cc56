import { describe, expect, it } from 'vitest';
import { CapturingLogger } from '../runtime/testing/capturing_logger.js';
import { ManualClock } from '../runtime/testing/manual_clock.js';
import { AddressDiscovery, parseAddress } from './discovery.js';
import { FakeResolver } from './fake_memcached.js';

describe('parseAddress', () => {
  it('understands the discovery prefixes and static addresses', () => {
    expect(parseAddress('dns+memcached.svc:11211')).toMatchObject({
      kind: 'dns',
      host: 'memcached.svc',
      port: 11211,
    });
    expect(parseAddress('dnssrv+_memcached._tcp.memcached.svc')).toMatchObject({
      kind: 'dnssrv',
      name: '_memcached._tcp.memcached.svc',
    });
    expect(parseAddress('dnssrvnoa+_mc._tcp.x')).toMatchObject({
      kind: 'dnssrvnoa',
      name: '_mc._tcp.x',
    });
    expect(parseAddress('10.0.0.1:11211')).toMatchObject({
      kind: 'static',
      host: '10.0.0.1',
      port: 11211,
    });
    expect(parseAddress('[::1]:11211')).toMatchObject({ kind: 'static', host: '::1', port: 11211 });
  });

  it.each([
    ['dns+memcached.svc', /"dns\+memcached\.svc".*port is required/],
    ['memcached', /"memcached".*port is required/],
    ['dns+host:99999', /"dns\+host:99999".*out of range/],
    ['dnssrv+name:11211', /"dnssrv\+name:11211".*no port/],
    ['consul+name:1', /"consul\+name:1".*unknown prefix "consul\+"/],
    ['dns+', /"dns\+".*empty/],
  ])('rejects %j with an error naming it', (raw, message) => {
    expect(() => parseAddress(raw)).toThrow(message);
  });
});

describe('AddressDiscovery', () => {
  function setup(addresses: string[]) {
    const clock = new ManualClock(0);
    const resolver = new FakeResolver();
    const changes: string[][] = [];
    const logger = new CapturingLogger();
    const d = new AddressDiscovery(addresses, { resolver, clock, logger }, (s) => changes.push(s));
    return { clock, resolver, changes, d, logger };
  }

  it('resolves dns+, dnssrv+ and dnssrvnoa+ addresses', async () => {
    const { resolver, d } = setup([
      'dns+mc.svc:11211',
      'dnssrv+_mc._tcp.a',
      'dnssrvnoa+_mc._tcp.b',
      'static:1',
    ]);
    resolver.hosts.set('mc.svc', ['10.0.0.1', 'fd00::1']);
    resolver.srv.set('_mc._tcp.a', [
      { target: 'a-0.a', port: 11311 },
      { target: 'a-1.a', port: 11312 },
    ]);
    resolver.hosts.set('a-0.a', ['10.1.0.1']);
    resolver.hosts.set('a-1.a', ['10.1.0.2']);
    resolver.srv.set('_mc._tcp.b', [{ target: 'b-0.b', port: 11411 }]);
    await d.start(30_000);
    expect(d.servers).toEqual([
      '10.0.0.1:11211',
      '[fd00::1]:11211',
      '10.1.0.1:11311',
      '10.1.0.2:11312',
      'b-0.b:11411',
      'static:1',
    ]);
    d.stop();
  });

  it('re-resolves on the clock and keeps the previous servers when a lookup fails', async () => {
    const { resolver, d, clock, changes, logger } = setup(['dns+mc.svc:11211']);
    resolver.hosts.set('mc.svc', ['10.0.0.1']);
    await d.start(30_000);
    expect(changes).toEqual([['10.0.0.1:11211']]);

    resolver.hosts.set('mc.svc', ['10.0.0.1', '10.0.0.2']);
    await clock.advance(29_999);
    expect(d.servers).toEqual(['10.0.0.1:11211']);
    await clock.advance(1);
    expect(d.servers).toEqual(['10.0.0.1:11211', '10.0.0.2:11211']);

    resolver.failing.add('mc.svc');
    await clock.advance(30_000);
    expect(d.servers).toEqual(['10.0.0.1:11211', '10.0.0.2:11211']);
    expect(logger.lines.some((l) => l.msg.includes('lookup failed'))).toBe(true);

    resolver.failing.clear();
    resolver.hosts.set('mc.svc', ['10.0.0.2']);
    await clock.advance(30_000);
    expect(d.servers).toEqual(['10.0.0.2:11211']);
    expect(changes).toHaveLength(3); // a failed lookup changes nothing

    d.stop();
    const lookups = resolver.lookups;
    await clock.advance(120_000);
    expect(resolver.lookups).toBe(lookups);
  });

  it('never schedules lookups for static addresses', async () => {
    const { d, clock } = setup(['a:1', 'b:2']);
    await d.start(30_000);
    expect(d.servers).toEqual(['a:1', 'b:2']);
    expect(clock.pendingTimers).toBe(0);
  });
});
