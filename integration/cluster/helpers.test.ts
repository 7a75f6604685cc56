/**
 * The end-to-end helpers checked on their own, so a failing end-to-end test points at the
 * product and not at its instruments: the ring-page reader against the real page renderer,
 * the ledger comparison, the text-format reader and the tenant proxy.
 */
import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { JSON_RING_CODEC, Ring, renderRingPage } from '../../src/ring/index.js';
import { MemoryKV, MemoryKVStore, newMetricsRegistry } from '../../src/runtime/index.js';
import { CapturingLogger, ManualClock } from '../../src/runtime/testing/index.js';
import { RemoteWriteLoad } from './load.js';
import { metricValue, parseRingPage } from './nodes.js';
import { startTenantProxy } from './tenant-proxy.js';

const NOW = 1_700_000_000_000;

describe('parseRingPage', () => {
  it('reads id, state, health, address and token count from the rendered ring page', async () => {
    const kv = new MemoryKV({}, { store: new MemoryKVStore() });
    const inst = (addr: string, state: 'ACTIVE' | 'READONLY', ageS: number) => ({
      addr,
      timestamp: NOW / 1000 - ageS,
      state,
      tokens: [1, 2, 3],
      zone: '',
      registeredTimestamp: NOW / 1000 - 100,
    });
    await kv.cas('ring', () =>
      JSON_RING_CODEC.encode({
        ingesters: {
          'ing-<1>': inst('127.0.0.1:1', 'ACTIVE', 1),
          'ing-2': inst('127.0.0.1:2', 'READONLY', 600),
        },
      }),
    );
    const ring = new Ring(
      {
        name: 'ingester',
        key: 'ring',
        replicationFactor: 3,
        heartbeatTimeoutMs: 60_000,
        zoneAwarenessEnabled: false,
      },
      {
        kv,
        clock: new ManualClock(NOW),
        logger: new CapturingLogger(),
        metrics: newMetricsRegistry(),
      },
    );
    const ac = new AbortController();
    await ring.start(ac.signal);
    try {
      expect(parseRingPage(renderRingPage(ring, NOW))).toEqual([
        {
          id: 'ing-2',
          zone: '',
          state: 'READONLY',
          health: 'UNHEALTHY',
          addr: '127.0.0.1:2',
          tokens: 3,
        },
        {
          id: 'ing-<1>',
          zone: '',
          state: 'ACTIVE',
          health: 'HEALTHY',
          addr: '127.0.0.1:1',
          tokens: 3,
        },
      ]);
    } finally {
      ac.abort();
      await ring.stop();
    }
  });
});

describe('RemoteWriteLoad.check', () => {
  const ledger = (): RemoteWriteLoad => {
    const l = new RemoteWriteLoad({
      url: 'http://unused',
      tenant: 't',
      metric: 'm',
      workers: 1,
      seriesPerWorker: 1,
      pauseMs: 0,
    });
    l.acked.set('a', new Map([[1, 10]]));
    l.attempted.set('a', new Map([[2, 20]]));
    return l;
  };

  it('accepts every acknowledged sample once, with or without unacknowledged ones', () => {
    expect(ledger().check(new Map([['a', [[1, 10]]]])).missing).toEqual([]);
    const r = ledger().check(
      new Map([
        [
          'a',
          [
            [1, 10],
            [2, 20],
          ],
        ],
      ]),
    );
    expect([r.missing, r.duplicated, r.phantom]).toEqual([[], [], []]);
  });

  it('reports missing, wrong, duplicated and never-pushed samples', () => {
    expect(ledger().check(new Map()).missing).toEqual(['a@1=10 (got nothing)']);
    expect(ledger().check(new Map([['a', [[1, 11]]]])).missing).toEqual(['a@1=10 (got 11)']);
    const r = ledger().check(
      new Map([
        [
          'a',
          [
            [1, 10],
            [1, 10],
            [3, 30],
          ],
        ],
      ]),
    );
    expect(r.duplicated).toEqual(['a@1']);
    expect(r.phantom).toEqual(['a@3=30']);
  });
});

describe('metricValue', () => {
  const text = [
    '# HELP x a counter',
    '# TYPE x counter',
    'x{remote_name="a",url="http://h/p"} 3',
    'x{remote_name="b",url="http://h/p"} 4',
    'xy 9',
    'y 1.5e+09',
  ].join('\n');

  it('sums the samples whose labels match and tells an absent metric from zero', () => {
    expect(metricValue(text, 'x', { remote_name: 'a' })).toBe(3);
    expect(metricValue(text, 'x')).toBe(7);
    expect(metricValue(text, 'y')).toBe(1.5e9);
    expect(metricValue(text, 'z')).toBeUndefined();
    expect(metricValue(text, 'x', { remote_name: 'c' })).toBeUndefined();
  });
});

describe('startTenantProxy', () => {
  it('forwards method, path and body with the tenant header and counts statuses', async () => {
    const seen: {
      method?: string | undefined;
      url?: string | undefined;
      tenant?: string;
      body: string;
    }[] = [];
    const upstream = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        seen.push({
          method: req.method,
          url: req.url,
          tenant: req.headers['x-scope-orgid'] as string,
          body,
        });
        res.writeHead(204);
        res.end();
      });
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
    const addr = upstream.address();
    const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
    const proxy = await startTenantProxy(`http://127.0.0.1:${port}`, 'tenant-1');
    try {
      const res = await fetch(`${proxy.url}/api/v1/push?x=1`, {
        method: 'POST',
        headers: { 'X-Scope-OrgID': 'spoofed' },
        body: 'payload',
      });
      expect(res.status).toBe(204);
      expect(seen).toEqual([
        { method: 'POST', url: '/api/v1/push?x=1', tenant: 'tenant-1', body: 'payload' },
      ]);
      expect([...proxy.forwarded]).toEqual([[204, 1]]);
    } finally {
      await proxy.close();
      await new Promise<void>((r) => upstream.close(() => r()));
    }
  });
});
