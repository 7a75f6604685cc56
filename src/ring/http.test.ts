import { describe, expect, it } from 'vitest';
import { MemoryKV, MemoryKVStore, newMetricsRegistry } from '../runtime/index.js';
import { CapturingLogger, ManualClock } from '../runtime/testing/index.js';
import { JSON_RING_CODEC } from './codec.js';
import { forgetInstance, renderRingPage, serveRingPage } from './http.js';
import type { InstanceDesc, RingDesc } from './model.js';
import { Ring } from './ring.js';

const NOW = 1_700_000_000_000;

function inst(over: Partial<InstanceDesc>): InstanceDesc {
  return {
    addr: '10.0.0.1:9095',
    timestamp: NOW / 1000 - 5,
    state: 'ACTIVE',
    tokens: [2 ** 30, 3 * 2 ** 30],
    zone: '',
    registeredTimestamp: NOW / 1000 - 3600,
    ...over,
  };
}

async function setup(desc: RingDesc) {
  const kv = new MemoryKV({}, { store: new MemoryKVStore() });
  await kv.cas('ring', () => JSON_RING_CODEC.encode(desc));
  const clock = new ManualClock(NOW);
  const logger = new CapturingLogger();
  const ring = new Ring(
    {
      name: 'ingester',
      key: 'ring',
      replicationFactor: 3,
      heartbeatTimeoutMs: 60_000,
      zoneAwarenessEnabled: false,
    },
    { kv, clock, logger, metrics: newMetricsRegistry() },
  );
  await ring.start(new AbortController().signal);
  return { kv, clock, logger, ring };
}

describe('ring status page', () => {
  it('shows one row per instance with state, health, heartbeat, tokens and ownership', async () => {
    const { ring } = await setup({
      ingesters: {
        'ing-1': inst({ zone: 'z1' }),
        'ing-2': inst({
          tokens: [2 ** 31],
          state: 'LEAVING',
          timestamp: NOW / 1000 - 300,
          addr: '10.0.0.2:9095',
        }),
      },
    });
    const html = renderRingPage(ring, NOW);
    expect(html).toContain('<title>ingester ring status</title>');
    const rows = html.split('\n').filter((l) => l.startsWith('<tr'));
    expect(rows).toHaveLength(2);
    // Sorted by zone then ID: '' (ing-2) before 'z1' (ing-1).
    expect(rows[0]).toContain('<td>ing-2</td>');
    expect(rows[0]).toContain('<td>LEAVING</td><td>UNHEALTHY</td>');
    expect(rows[0]).toContain('(300s ago)');
    expect(rows[0]).toContain('<td>1</td><td>25.00%</td>');
    expect(rows[0]).toContain('<button name="forget" value="ing-2" type="submit">Forget</button>');
    expect(rows[1]).toContain(
      '<td>ing-1</td><td>z1</td><td>ACTIVE</td><td>HEALTHY</td><td>10.0.0.1:9095</td>',
    );
    expect(rows[1]).toContain('<td>2023-11-14T22:13:15Z (5s ago)</td>');
    expect(rows[1]).toContain('<td>2</td><td>75.00%</td>');
    expect(rows[1]).not.toContain('Forget');
    expect(html).toContain('Instances: 2, healthy: 1.');
    expect(html).not.toContain(String(2 ** 30));
    expect(renderRingPage(ring, NOW, { showTokens: true })).toContain(`${2 ** 30} ${3 * 2 ** 30}`);
    await ring.stop();
  });

  it('escapes everything that comes from the ring', async () => {
    const evil = '<script>alert("x")</script>';
    const { ring } = await setup({
      ingesters: { [evil]: inst({ addr: `"><img src=x>`, zone: `a&b'`, timestamp: 0 }) },
    });
    const html = renderRingPage(ring, NOW, { title: '<b>t</b>', message: '<i>' });
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(html).toContain('a&amp;b&#39;');
    expect(html).toContain('<title>&lt;b&gt;t&lt;/b&gt;</title>');
    expect(html).toContain('value="&lt;script&gt;');
    await ring.stop();
  });

  it('forget removes the instance and redirects; the ring follows', async () => {
    const { kv, clock, logger, ring } = await setup({
      ingesters: { a: inst({}), dead: inst({ timestamp: 0, tokens: [7] }) },
    });
    const res = await serveRingPage(
      ring,
      { kv, key: 'ring', nowMs: NOW, logger },
      { method: 'POST', query: new URLSearchParams(), form: new URLSearchParams('forget=dead') },
    );
    expect(res.status).toBe(302);
    expect(res.headers['Location']).toBe('#');
    await clock.advance(0);
    expect(Object.keys(ring.desc().ingesters)).toEqual(['a']);
    expect(logger.find('instance forgotten')).toHaveLength(1);
    expect(await forgetInstance(kv, 'ring', 'dead')).toBe(false);
    await ring.stop();
  });

  it('answers GET with the page, POST without an ID with 400, other methods with 405', async () => {
    const { kv, logger, ring } = await setup({ ingesters: { a: inst({}) } });
    const deps = { kv, key: 'ring', nowMs: NOW, logger };
    const get = await serveRingPage(ring, deps, {
      method: 'GET',
      query: new URLSearchParams('tokens=true'),
    });
    expect(get.status).toBe(200);
    expect(get.headers['Content-Type']).toBe('text/html; charset=utf-8');
    expect(get.body).toContain('Hide tokens');
    const bad = await serveRingPage(ring, deps, { method: 'POST', query: new URLSearchParams() });
    expect(bad.status).toBe(400);
    expect(bad.body).toContain('"forget"');
    expect(
      (await serveRingPage(ring, deps, { method: 'PUT', query: new URLSearchParams() })).status,
    ).toBe(405);
    await ring.stop();
  });
});
