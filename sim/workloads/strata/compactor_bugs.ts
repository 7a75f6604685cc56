import { markBlockForDeletion } from '../../../src/bucket/index.js';
import { JSON_RING_CODEC } from '../../../src/ring/index.js';
import {
  ForwardingBucket,
  type Bucket,
  type BucketCallOptions,
  type Env,
  type KV,
  type Logger,
  type UploadSource,
} from '../../../src/runtime/index.js';
import { parseBlockMeta } from '../../../src/tsdb/index.js';
import { BLOCK_OBJECT } from './bucket_history.js';
import type { BrokenCompactorMode } from './config_compactor.js';

/** Where the compactor merges (`compactor.data_dir` + `/compact`), set by node_config. */
export const COMPACTOR_WORK_DIR = '/data/compactor/compact';
/** The external label the skip_dedup bug adds: a label the compactor does not drop. */
export const REPLICA_LABEL = '__sim_replica__';
const INGESTER_ID_LABEL = '__ingester_id__';
const COMPACTOR_RING_KEY = 'compactor';

/**
 * The Env of a deliberately broken compactor, built from outside the product: its bucket
 * (`skip_dedup`, `delete_sources_early`) or its ring KV (`ignore_ownership`) is wrapped.
 */
export function brokenCompactorEnv(env: Env, mode: BrokenCompactorMode): Env {
  const log = env.logger.child({ bug: mode });
  switch (mode) {
    case 'none':
      return env;
    case 'skip_dedup':
      return {
        ...env,
        buckets: { open: (spec) => new ReplicaLabelBucket(env.buckets.open(spec)) },
      };
    case 'delete_sources_early':
      return {
        ...env,
        buckets: { open: (spec) => new EarlySourceMarkBucket(env.buckets.open(spec), env, log) },
      };
    case 'ignore_ownership':
      return {
        ...env,
        kvs: { open: (spec, prefix) => new SoloRingKV(env.kvs.open(spec, prefix), env.nodeName) },
      };
  }
}

/** A Bucket that forwards every call; subclasses intercept some. */
/**
 * `skip_dedup`: every block's meta.json reads as if its replica were a distinct source (the
 * ingester id copied into a label the compactor keeps), so the compactor groups each
 * replica apart and never merges and de-duplicates replicas: the bucket keeps every sample
 * once per replica, in blocks that overlap forever.
 */
export class ReplicaLabelBucket extends ForwardingBucket {
  override async get(name: string, opts?: BucketCallOptions): Promise<Uint8Array> {
    const data = await this.inner.get(name, opts);
    if (BLOCK_OBJECT.exec(name)?.[3] !== 'meta.json') return data;
    const doc = JSON.parse(new TextDecoder().decode(data)) as {
      thanos?: { labels?: Record<string, string> };
    };
    const labels = doc.thanos?.labels;
    const replica = labels?.[INGESTER_ID_LABEL];
    if (labels === undefined || replica === undefined) return data;
    labels[REPLICA_LABEL] = replica;
    return new TextEncoder().encode(JSON.stringify(doc));
  }
}

/**
 * `delete_sources_early`: when the compactor uploads the first object of a block it made, the
 * block's parents (read from the local meta.json in the compactor's work directory) are
 * marked for deletion at once, before the output's meta.json is in the bucket. A crash or a
 * failed upload in between leaves the sources doomed and the output partial.
 */
export class EarlySourceMarkBucket extends ForwardingBucket {
  private readonly seen = new Set<string>();

  constructor(
    inner: Bucket,
    private readonly env: Env,
    private readonly log: Logger,
  ) {
    super(inner);
  }

  override async upload(name: string, data: Uint8Array, opts?: BucketCallOptions): Promise<void> {
    await this.beforeUpload(name);
    return this.inner.upload(name, data, opts);
  }

  /** Chunk segments and the index arrive streamed: the first of them triggers the marks. */
  override async uploadStream(
    name: string,
    source: UploadSource,
    opts?: BucketCallOptions,
  ): Promise<void> {
    await this.beforeUpload(name);
    return this.inner.uploadStream(name, source, opts);
  }

  private async beforeUpload(name: string): Promise<void> {
    const m = BLOCK_OBJECT.exec(name);
    if (m !== null && !m[3]!.endsWith('mark.json') && !this.seen.has(`${m[1]}/${m[2]}`)) {
      this.seen.add(`${m[1]}/${m[2]}`);
      await this.markParents(m[1]!, m[2]!);
    }
  }

  private async markParents(tenant: string, ulid: string): Promise<void> {
    const fs = this.env.fs;
    const tenantDir = `${COMPACTOR_WORK_DIR}/${tenant}`;
    if (!(await fs.exists(tenantDir))) return;
    for (const group of await fs.readdir(tenantDir)) {
      const path = `${tenantDir}/${group}/${ulid}/meta.json`;
      if (!(await fs.exists(path))) continue;
      const meta = parseBlockMeta(new TextDecoder().decode(await fs.readFile(path)));
      for (const parent of meta.compaction.parents ?? []) {
        this.log.warn('marking a source for deletion before its output is uploaded', {
          block: parent.ulid,
          output: ulid,
        });
        await markBlockForDeletion(
          this.inner,
          tenant,
          parent.ulid,
          this.env.clock,
          'deliberate bug: delete_sources_early',
        );
      }
      return;
    }
  }
}

/**
 * `ignore_ownership`: reads of the compactor ring show only this compactor, so it believes it
 * owns every tenant. Writes (its own heartbeats) go through untouched, so the others still
 * see it and the real ring stays intact.
 */
export class SoloRingKV implements KV {
  constructor(
    private readonly inner: KV,
    private readonly self: string,
  ) {}

  private filter(key: string, value: Uint8Array | undefined): Uint8Array | undefined {
    if (key !== COMPACTOR_RING_KEY || value === undefined) return value;
    const desc = JSON_RING_CODEC.decode(value);
    for (const id of Object.keys(desc.ingesters)) if (id !== this.self) delete desc.ingesters[id];
    return JSON_RING_CODEC.encode(desc);
  }

  async get(key: string, signal?: AbortSignal): Promise<Uint8Array | undefined> {
    return this.filter(key, await this.inner.get(key, signal));
  }
  list(prefix: string, signal?: AbortSignal): Promise<string[]> {
    return this.inner.list(prefix, signal);
  }
  cas(
    key: string,
    update: (current: Uint8Array | undefined) => Uint8Array | null | undefined,
    signal?: AbortSignal,
  ): Promise<void> {
    return this.inner.cas(key, update, signal);
  }
  delete(key: string, signal?: AbortSignal): Promise<void> {
    return this.inner.delete(key, signal);
  }
  watchKey(
    key: string,
    signal: AbortSignal,
    onChange: (value: Uint8Array | undefined) => boolean,
  ): Promise<void> {
    return this.inner.watchKey(key, signal, (v) => onChange(this.filter(key, v)));
  }
  watchPrefix(
    prefix: string,
    signal: AbortSignal,
    onChange: (key: string, value: Uint8Array | undefined) => boolean,
  ): Promise<void> {
    return this.inner.watchPrefix(prefix, signal, (k, v) => onChange(k, this.filter(k, v)));
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}
