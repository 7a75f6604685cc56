// The compactor ring page of a -target=compactor process with sharding: instances with their
// tokens, and the Forget button removing a dead compactor from the KV store.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DiskFileSystem } from '../../sim/testing/index.js';
import { COMPACTOR_RING_KEY } from '../compactor/index.js';
import { defaultConfig } from '../config/index.js';
import { JSON_RING_CODEC, emptyRingDesc } from '../ring/index.js';
import { createSeededRandom, newMetricsRegistry, type Env } from '../runtime/index.js';
import {
  MemoryBucket,
  MemoryKV,
  MemoryKVStore,
  MemoryNetwork,
  MemoryTransport,
} from '../runtime/memory/index.js';
import { CapturingLogger, ManualClock } from '../runtime/testing/index.js';
import { Strata } from './strata.js';

const T0 = 1_700_000_000_000;
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

describe('/compactor/ring', () => {
  it('lists the compactors with their tokens and forgets one', async () => {
    const clock = new ManualClock(T0);
    const store = new MemoryKVStore();
    const kv = new MemoryKV({ prefix: 'collectors/' }, { store });
    await kv.cas(COMPACTOR_RING_KEY, () => {
      const desc = emptyRingDesc();
      desc.ingesters['dead-compactor'] = {
        addr: 'dead:9095',
        timestamp: T0 / 1000 - 3600,
        state: 'ACTIVE',
        tokens: [11, 22, 33],
        zone: '',
        registeredTimestamp: 1,
      };
      return JSON_RING_CODEC.encode(desc);
    });
    const env: Env = {
      nodeName: 'compactor-node',
      clock,
      random: createSeededRandom('compactor-ring-page'),
      fs: new DiskFileSystem(),
      transport: new MemoryTransport('compactor-node:9095', new MemoryNetwork()),
      buckets: { open: () => new MemoryBucket({ clock }) },
      kvs: { open: (_spec, prefix) => new MemoryKV({ prefix }, { store }) },
      caches: {
        open: () => {
          throw new Error('no caches in this test');
        },
      },
      logger: new CapturingLogger(),
      metrics: newMetricsRegistry(),
    };
    const config = defaultConfig();
    config.target = 'compactor';
    config.tsdb.backend = 'filesystem';
    config.tsdb.filesystem.dir = '/data/blocks';
    config.compactor.sharding_enabled = true;
    config.compactor.sharding_ring.kvstore.store = 'inmemory';
    // The dead instance must stay until the test forgets it.
    config.compactor.sharding_ring.auto_forget_delay = 0;
    config.compactor.sharding_ring.wait_stability_min_duration = 0;
    const strata = await Strata.create(config, env);
    const started = strata.start();
    await clock.advance(1_000);
    await started;
    closers.push(() => strata.stop());
    const server = createServer(strata.httpHandler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(
      () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    );
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/compactor/ring`;

    const page = await (await fetch(`${url}?tokens=true`)).text();
    expect(page).toContain('<td>compactor-node</td>');
    expect(page).toMatch(/<tr class="unhealthy"><td>dead-compactor<\/td>/);
    expect(page).toContain('<p class="tokens">11 22 33</p>');
    const own = JSON_RING_CODEC.decode(await kv.get(COMPACTOR_RING_KEY)).ingesters[
      'compactor-node'
    ];
    expect(own?.tokens).toHaveLength(512);
    expect(page).toContain(`<p class="tokens">${own?.tokens.join(' ')}</p>`);

    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'forget=dead-compactor',
      redirect: 'manual',
    });
    expect(res.status).toBe(302);
    const desc = JSON_RING_CODEC.decode(await kv.get(COMPACTOR_RING_KEY));
    expect(Object.keys(desc.ingesters)).toEqual(['compactor-node']);
  });
});
