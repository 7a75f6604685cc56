// The purger and the compactor wired by -target: the purger's endpoints on the process's
// HTTP server over the `purger` bucket client, the compactor's retention read from the
// runtime-config overrides, and the tenant cleanup delay from its config.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DiskFileSystem } from '../../sim/testing/index.js';
import { readBucketIndex, readTenantDeletionMark } from '../bucket/index.js';
import { testUlid, uploadTestBlock } from '../bucket/testing.js';
import { defaultConfig, type Config } from '../config/index.js';
import { createSeededRandom, newMetricsRegistry, type Env } from '../runtime/index.js';
import {
  MemoryBucket,
  MemoryKV,
  MemoryKVStore,
  MemoryNetwork,
  MemoryTransport,
} from '../runtime/memory/index.js';
import { CapturingLogger, ManualClock } from '../runtime/testing/index.js';
import { startStrata, type Strata } from './strata.js';

const T0 = 1_700_000_000_000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

interface World {
  env: Env;
  clock: ManualClock;
  bucket: MemoryBucket;
}

async function world(files: Record<string, string> = {}): Promise<World> {
  const clock = new ManualClock(T0);
  const bucket = new MemoryBucket({ clock });
  const fs = new DiskFileSystem();
  const store = new MemoryKVStore();
  for (const [path, text] of Object.entries(files)) {
    await fs.mkdir(path.slice(0, path.lastIndexOf('/')), { recursive: true });
    await fs.writeFile(path, text);
  }
  const env: Env = {
    nodeName: 'test-node',
    clock,
    random: createSeededRandom('purger-test'),
    fs,
    transport: new MemoryTransport('test-node:9095', new MemoryNetwork()),
    buckets: { open: () => bucket },
    kvs: { open: (_spec, prefix) => new MemoryKV({ prefix }, { store }) },
    caches: {
      open: () => {
        throw new Error('no caches in this test');
      },
    },
    logger: new CapturingLogger(),
    metrics: newMetricsRegistry(),
  };
  return { env, clock, bucket };
}

function config(edit: (c: Config) => void): Config {
  const c = defaultConfig();
  c.tsdb.backend = 'filesystem';
  c.tsdb.filesystem.dir = '/data/blocks';
  c.compactor.sharding_ring.kvstore.store = 'inmemory';
  edit(c);
  return c;
}

async function started(c: Config, env: Env): Promise<{ strata: Strata; url: string }> {
  const strata = await startStrata(c, env);
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
  return { strata, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('-target=purger', () => {
  it('serves the tenant deletion endpoints and is no placeholder', async () => {
    const w = await world();
    const { strata, url } = await started(
      config((c) => (c.target = 'purger')),
      w.env,
    );
    const status = strata.modules.statuses().find((s) => s.name === 'purger');
    expect(status?.state).toBe('Running');
    expect(status?.note).toBeUndefined();
    await uploadTestBlock(w.bucket, 't', testUlid(T0 - DAY, 1));
    const before = await fetch(`${url}/purger/delete_tenant_status`, {
      headers: { 'X-Scope-OrgID': 't' },
    });
    expect(await before.text()).toBe('{"tenant_id":"t","blocks_deleted":false}');
    const post = await fetch(`${url}/purger/delete_tenant`, {
      method: 'POST',
      headers: { 'X-Scope-OrgID': 't' },
    });
    expect(post.status).toBe(200);
    expect(await readTenantDeletionMark(w.bucket, 't')).toEqual({ deletion_time: T0 / 1000 });
    expect(await (await fetch(`${url}/`)).text()).toContain('/purger/delete_tenant_status');
  });
});

describe('-target=compactor,purger', () => {
  it('applies per-tenant retention from the runtime config and deletes a purged tenant', async () => {
    const w = await world({
      '/etc/runtime.yaml': 'overrides:\n  short:\n    compactor_blocks_retention_period: 1d\n',
    });
    const old = testUlid(T0 - 3 * DAY, 1);
    for (const tenant of ['short', 'other', 'purged'])
      await uploadTestBlock(w.bucket, tenant, old, { minTime: 0, maxTime: T0 - 2 * DAY });
    const { url } = await started(
      config((c) => {
        c.target = 'compactor,purger';
        c.runtime_config.file = '/etc/runtime.yaml';
        c.compactor.cleanup_interval = HOUR;
        c.compactor.tenant_cleanup_delay = 0;
      }),
      w.env,
    );
    await fetch(`${url}/purger/delete_tenant`, {
      method: 'POST',
      headers: { 'X-Scope-OrgID': 'purged' },
    });
    // The first cleanup (at start) built the indexes; the next one applies retention and
    // deletes the purged tenant's blocks, the one after finishes the purge.
    await w.clock.advance(HOUR);
    await w.clock.advance(HOUR);
    const marks = async (t: string): Promise<string[]> =>
      (await readBucketIndex(w.bucket, t)).block_deletion_marks.map((m) => m.block_id);
    expect(await marks('short')).toEqual([old]);
    expect(await marks('other')).toEqual([]);
    expect(await w.bucket.list('purged/', { recursive: true })).toEqual([]);
    expect(await readTenantDeletionMark(w.bucket, 'purged')).toBeUndefined();
    const status = await fetch(`${url}/purger/delete_tenant_status`, {
      headers: { 'X-Scope-OrgID': 'purged' },
    });
    expect(await status.text()).toBe('{"tenant_id":"purged","blocks_deleted":true}');
  });
});
