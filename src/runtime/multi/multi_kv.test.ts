import { describe, expect, it } from 'vitest';
import type { KV } from '../kv.js';
import { MemoryKV, MemoryKVStore } from '../memory/index.js';
import { newMetricsRegistry, type MetricsRegistry } from '../metrics.js';
import { CapturingLogger, ManualClock, describeKVContract } from '../testing/index.js';
import { MultiKV, type MultiKVConfig } from './multi_kv.js';

const enc = new TextEncoder();
const dec = new TextDecoder();
const b = (s: string): Uint8Array => enc.encode(s);
const s = (v: Uint8Array | undefined): string | undefined =>
  v === undefined ? undefined : dec.decode(v);

interface Setup {
  multi: MultiKV;
  /** Direct clients of the two underlying stores. */
  etcd: MemoryKV;
  consul: MemoryKV;
  clock: ManualClock;
  logger: CapturingLogger;
  registry: MetricsRegistry;
}

/** A multi client over two in-memory stores named as if they were etcd (primary) and consul. */
function setup(config: Partial<MultiKVConfig> = {}, secondary?: KV): Setup {
  const etcdStore = new MemoryKVStore();
  const consulStore = new MemoryKVStore();
  const clock = new ManualClock();
  const logger = new CapturingLogger();
  const registry = newMetricsRegistry();
  const multi = new MultiKV(
    { primary: 'etcd', secondary: 'consul', name: 'collectors/', ...config },
    {
      primaryKV: new MemoryKV({}, { store: etcdStore }),
      secondaryKV: secondary ?? new MemoryKV({}, { store: consulStore }),
      clock,
      logger,
      registry,
    },
  );
  return {
    multi,
    etcd: new MemoryKV({}, { store: etcdStore }),
    consul: new MemoryKV({}, { store: consulStore }),
    clock,
    logger,
    registry,
  };
}

async function metric(registry: MetricsRegistry, name: string): Promise<string[]> {
  const text = await registry.metrics();
  return text.split('\n').filter((l) => l.startsWith(name));
}

describeKVContract('MultiKV over two MemoryKVs (mirroring on)', () => {
  const primary = new MemoryKVStore();
  const secondary = new MemoryKVStore();
  const registry = newMetricsRegistry();
  const make = (): MultiKV =>
    new MultiKV(
      { primary: 'etcd', secondary: 'consul', mirrorEnabled: true },
      {
        primaryKV: new MemoryKV({ prefix: 'p/' }, { store: primary }),
        secondaryKV: new MemoryKV({ prefix: 'p/' }, { store: secondary }),
        clock: new ManualClock(),
        logger: new CapturingLogger(),
        registry,
      },
    );
  return Promise.resolve({ kv: make(), peer: make(), cleanup: () => Promise.resolve() });
});

describe('MultiKV', () => {
  it('reads and writes only the primary while mirroring is off', async () => {
    const { multi, etcd, consul, registry } = setup();
    await consul.cas('ring', () => b('stale secondary'));
    await multi.cas('ring', () => b('v1'));
    expect(s(await etcd.get('ring'))).toBe('v1');
    expect(s(await consul.get('ring'))).toBe('stale secondary');
    expect(s(await multi.get('ring'))).toBe('v1');
    expect(await metric(registry, 'cortex_multikv_mirror_writes_total')).toEqual([]);
    expect(await metric(registry, 'cortex_multikv_mirror_enabled')).toContain(
      'cortex_multikv_mirror_enabled{kv_name="collectors/"} 0',
    );
  });

  it('mirrors the value the primary stored, deletions included, and counts the writes', async () => {
    const { multi, etcd, consul, registry } = setup({ mirrorEnabled: true });
    await etcd.cas('ring', () => b('base'));
    await multi.cas('ring', (cur) => b(`${s(cur)}+1`));
    expect(s(await consul.get('ring'))).toBe('base+1');
    await multi.cas('ring', () => undefined); // no write: nothing to mirror
    await multi.cas('other', () => b('x'));
    await multi.delete('other');
    expect(await consul.get('other')).toBeUndefined();
    await multi.cas('ring', () => null);
    expect(await consul.get('ring')).toBeUndefined();
    expect(await metric(registry, 'cortex_multikv_mirror_writes_total')).toEqual([
      'cortex_multikv_mirror_writes_total{kv_name="collectors/"} 4',
    ]);
  });

  it('mirrors a copy: mutating the returned buffer afterwards does not reach the secondary', async () => {
    const { multi, consul } = setup({ mirrorEnabled: true });
    const v = b('abc');
    await multi.cas('k', () => v);
    v[0] = 0x7a;
    expect(s(await consul.get('k'))).toBe('abc');
  });

  it('logs and counts a failed mirror write without failing the caller', async () => {
    class Unreachable extends MemoryKV {
      override cas(): Promise<void> {
        return Promise.reject(new Error('consul: connection refused'));
      }
    }
    const broken = new Unreachable({}, { store: new MemoryKVStore() });
    const { multi, etcd, logger, registry } = setup({ mirrorEnabled: true }, broken);
    await multi.cas('ring', () => b('v'));
    expect(s(await etcd.get('ring'))).toBe('v');
    expect(await metric(registry, 'cortex_multikv_mirror_write_errors_total')).toEqual([
      'cortex_multikv_mirror_write_errors_total{kv_name="collectors/"} 1',
    ]);
    const line = logger.lines.find((l) => l.msg === 'failed to update value in secondary store');
    expect(line?.level).toBe('warn');
    expect(line?.fields).toMatchObject({
      key: 'ring',
      primary: 'etcd',
      secondary: 'consul',
      err: 'consul: connection refused',
    });
  });

  it('gives up on a mirror write after the mirror timeout, aborting it', async () => {
    let aborted = false;
    const hanging = {
      cas: (_k: string, _u: unknown, signal?: AbortSignal) => {
        signal?.addEventListener('abort', () => (aborted = true));
        return new Promise<void>(() => {}); // never answers, ignores the signal
      },
      close: () => Promise.resolve(),
    } as unknown as KV;
    const { multi, etcd, clock, registry, logger } = setup(
      { mirrorEnabled: true, mirrorTimeoutMs: 500 },
      hanging,
    );
    let done = false;
    const write = multi.cas('ring', () => b('v')).then(() => (done = true));
    await clock.advance(499);
    expect(done).toBe(false);
    await clock.advance(1);
    await write;
    expect(aborted).toBe(true);
    expect(s(await etcd.get('ring'))).toBe('v');
    expect(await metric(registry, 'cortex_multikv_mirror_write_errors_total')).toEqual([
      'cortex_multikv_mirror_write_errors_total{kv_name="collectors/"} 1',
    ]);
    expect(logger.lines.at(-1)?.fields['err']).toBe('mirror write timed out after 500 ms');
    expect(clock.pendingTimers).toBe(0);
  });

  it('switches the primary at run time: reads, writes and running watches move to it', async () => {
    const { multi, etcd, consul, registry } = setup({ mirrorEnabled: true });
    await etcd.cas('ring', () => b('in etcd'));
    await consul.cas('ring', () => b('in consul'));
    const seen: (string | undefined)[] = [];
    const ac = new AbortController();
    const watch = multi.watchKey('ring', ac.signal, (v) => {
      seen.push(s(v));
      return true;
    });
    expect(seen).toEqual(['in etcd']);

    expect(multi.switchPrimary('consul')).toBe(true);
    expect(multi.primaryName()).toBe('consul');
    await expect.poll(() => seen.at(-1)).toBe('in consul');
    expect(s(await multi.get('ring'))).toBe('in consul');
    await etcd.cas('ring', () => b('etcd changed after the switch'));
    await consul.cas('ring', () => b('consul changed'));
    await expect.poll(() => seen.at(-1)).toBe('consul changed');
    expect(seen).not.toContain('etcd changed after the switch');

    // Writes now go to consul first and are mirrored to etcd.
    await multi.cas('ring', () => b('written via multi'));
    expect(s(await etcd.get('ring'))).toBe('written via multi');
    expect(await metric(registry, 'cortex_multikv_primary_store')).toEqual(
      expect.arrayContaining([
        'cortex_multikv_primary_store{kv_name="collectors/",store="etcd"} 0',
        'cortex_multikv_primary_store{kv_name="collectors/",store="consul"} 1',
      ]),
    );
    expect(multi.switchPrimary('consul')).toBe(false); // already primary
    ac.abort();
    await watch;
  });

  it('restarts a prefix watch on the new primary, which reports its keys first', async () => {
    const { multi, etcd, consul } = setup();
    await etcd.cas('ring/a', () => b('etcd a'));
    await consul.cas('ring/b', () => b('consul b'));
    const seen: [string, string | undefined][] = [];
    const ac = new AbortController();
    const watch = multi.watchPrefix('ring/', ac.signal, (k, v) => {
      seen.push([k, s(v)]);
      return k !== 'ring/stop';
    });
    multi.switchPrimary('consul');
    await expect.poll(() => seen.length).toBe(2);
    expect(seen).toEqual([
      ['ring/a', 'etcd a'],
      ['ring/b', 'consul b'],
    ]);
    await consul.cas('ring/stop', () => b('x'));
    await watch; // ended by the callback, not by the switch
  });

  it('ignores an unknown primary with an error log, and applies runtime config like Cortex', () => {
    const { multi, logger } = setup();
    expect(multi.switchPrimary('memberlist')).toBe(false);
    expect(multi.primaryName()).toBe('etcd');
    expect(logger.lines.at(-1)).toMatchObject({
      level: 'error',
      fields: { primary: 'memberlist', stores: ['etcd', 'consul'] },
    });
    multi.applyRuntimeConfig({ primary: '', mirror_enabled: true });
    expect(multi.primaryName()).toBe('etcd');
    expect(multi.isMirrorEnabled()).toBe(true);
    multi.applyRuntimeConfig({ primary: 'consul' });
    expect(multi.primaryName()).toBe('consul');
    expect(multi.isMirrorEnabled()).toBe(true);
    multi.applyRuntimeConfig({});
    expect(multi.primaryName()).toBe('consul');
  });

  it('closes both clients and ends watches; later calls reject', async () => {
    const { multi } = setup();
    const watch = multi.watchPrefix('', new AbortController().signal, () => true);
    await multi.close();
    await watch;
    await expect(multi.get('k')).rejects.toThrow(/"collectors\/" is closed/);
    await multi.close(); // idempotent
  });

  it('rejects a non-positive mirror timeout', () => {
    expect(() => setup({ mirrorTimeoutMs: 0 })).toThrow(/mirrorTimeoutMs must be > 0, got 0/);
  });
});
