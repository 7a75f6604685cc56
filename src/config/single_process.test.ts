import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { loadConfig } from './load.js';
import { renderConfig } from './render.js';
import { StaticFiles } from './testing_files.js';

const PATH = 'docs/configuration/single-process.yaml';
const text = readFileSync(
  new URL('../../docs/configuration/single-process.yaml', import.meta.url),
  'utf8',
);

async function loadSingleProcess() {
  const result = await loadConfig([`-config.file=${PATH}`], {
    fs: new StaticFiles({ [PATH]: text }),
    env: {},
  });
  if (result.kind !== 'config') throw new Error('expected a config');
  return result.config;
}

describe('docs/configuration/single-process.yaml', () => {
  it('loads and validates with the settings a laptop run needs', async () => {
    const c = await loadSingleProcess();
    expect(c.target).toBe('all');
    expect(c.auth_enabled).toBe(false);
    expect(c.server.http_listen_port).toBe(9009);
    expect(c.server.grpc_listen_port).toBe(9095);
    expect(c.tsdb.dir).toBe('./data/tsdb');
    expect(c.tsdb.backend).toBe('filesystem');
    expect(c.tsdb.filesystem.dir).toBe('./data/blocks');
    expect(c.tsdb.bucket_store.sync_dir).toBe('./data/tsdb-sync');
    expect(c.compactor.data_dir).toBe('./data/compactor');
    expect(c.ingester.lifecycler.ring.kvstore.store).toBe('inmemory');
    expect(c.store_gateway.sharding_ring.kvstore.store).toBe('inmemory');
    expect(c.compactor.sharding_ring.kvstore.store).toBe('inmemory');
  });

  it('renders as a diff showing exactly the keys the file changes, in table order', async () => {
    const diff = renderConfig(await loadSingleProcess(), 'diff');
    expect(parse(diff)).toEqual({
      auth_enabled: false,
      server: { http_listen_port: 9009 },
      distributor: { ring: { kvstore: { store: 'inmemory' } } },
      ingester: {
        lifecycler: {
          ring: { kvstore: { store: 'inmemory' }, replication_factor: 1 },
          min_ready_duration: '0s',
        },
      },
      tsdb: {
        dir: './data/tsdb',
        backend: 'filesystem',
        bucket_store: { sync_dir: './data/tsdb-sync' },
        filesystem: { dir: './data/blocks' },
      },
      compactor: {
        data_dir: './data/compactor',
        sharding_ring: { kvstore: { store: 'inmemory' } },
      },
      store_gateway: { sharding_ring: { kvstore: { store: 'inmemory' }, replication_factor: 1 } },
    });
    const topLevel = diff
      .split('\n')
      .filter((l) => /^\S/.test(l))
      .map((l) => l.split(':')[0]);
    expect(topLevel).toEqual([
      'auth_enabled',
      'server',
      'distributor',
      'ingester',
      'tsdb',
      'compactor',
      'store_gateway',
    ]);
  });
});
