// The processes of the query-frontend benchmark, each a child started like the remote-write
// benchmark's targets (remote_write_targets.ts): one store-gateway over the filesystem
// bucket, a querier asked directly, two query-frontends (unsharded, sharded) each with a
// querier pulling from it, and Debian's Prometheus with the same blocks in its TSDB dir.
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { SERVER_NODE_FLAGS } from '../src/cli/index.js';
import {
  freePort,
  launch,
  repoRoot,
  startPrometheus,
  strataMain,
  waitReady,
  type Target,
} from './remote_write_targets.js';

export interface BenchProcess {
  readonly name: string;
  /** Base URL of the query API (`…/api/v1`). */
  readonly api: string;
  /** host:port of the internal RPC (Strata only). */
  readonly rpc: string;
  readonly target: Target;
}

/** How the frontends split and cache: Cortex's common production settings. */
export const SPLIT_INTERVAL = '3h';
export const SHARD_SIZE = 3;

/** One Strata process: the single-process config (in-memory rings) with `flags` on top. */
export async function startStrataProcess(
  name: string,
  work: string,
  bucketDir: string,
  flags: readonly string[],
): Promise<BenchProcess> {
  const httpPort = await freePort();
  const grpcPort = await freePort();
  const cwd = mkdtempSync(join(work, `${name}-`));
  const t = launch(
    'strata',
    process.execPath,
    [
      ...SERVER_NODE_FLAGS,
      strataMain(),
      'serve',
      `-config.file=${join(repoRoot(), 'docs', 'configuration', 'single-process.yaml')}`,
      '-auth.enabled=true',
      `-experimental.tsdb.dir=${join(cwd, 'tsdb')}`,
      `-experimental.tsdb.filesystem.dir=${bucketDir}`,
      `-experimental.tsdb.bucket-store.sync-dir=${join(cwd, 'sync')}`,
      // No compactor writes a bucket index here: gateways and queriers scan the bucket.
      '-experimental.tsdb.bucket-store.bucket-index.enabled=false',
      '-server.http-listen-address=127.0.0.1',
      `-server.http-listen-port=${httpPort}`,
      '-server.grpc-listen-address=127.0.0.1',
      `-server.grpc-listen-port=${grpcPort}`,
      '-log.level=warn',
      ...flags,
    ],
    cwd,
    '',
  );
  await waitReady(t, `http://127.0.0.1:${httpPort}/ready`, 120_000);
  return {
    name,
    api: `http://127.0.0.1:${httpPort}/prometheus/api/v1`,
    rpc: `127.0.0.1:${grpcPort}`,
    target: t,
  };
}

/** A querier reading blocks through the store-gateway at `gateway` (data older than 13h). */
export function querierFlags(gateway: string): string[] {
  return [
    '-target=querier',
    '-experimental.tsdb.store-gateway-enabled=true',
    `-querier.store-gateway-addresses=${gateway}`,
    // The data is days old: no ingester holds any of it.
    '-querier.query-ingesters-within=13h',
  ];
}

export function frontendFlags(sharded: boolean): string[] {
  return [
    '-target=query-frontend',
    `-querier.split-queries-by-interval=${SPLIT_INTERVAL}`,
    '-querier.align-querier-with-step=true',
    '-querier.cache-results=true',
    '-frontend.cache.enable-fifocache=true',
    ...(sharded ? [`-frontend.query-vertical-shard-size=${SHARD_SIZE}`] : []),
  ];
}

/**
 * Debian's Prometheus over a copy of the blocks in `blocksDir`. Compaction stays off (min =
 * max block duration = 2h) so it does not merge the blocks while it is being timed.
 */
export async function startPrometheusOver(blocksDir: string): Promise<BenchProcess> {
  const t = await startPrometheus({
    blocksFrom: blocksDir,
    args: [
      '--storage.tsdb.retention.time=100y',
      '--storage.tsdb.min-block-duration=2h',
      '--storage.tsdb.max-block-duration=2h',
    ],
  });
  // The target's URL is its remote-write receiver's, `…/api/v1/write`.
  return { name: 'prometheus', api: t.pushUrl.replace(/\/write$/, ''), rpc: '', target: t };
}
