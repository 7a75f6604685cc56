// Test support for the shipper's tests (imported by *.test.ts only): a bucket that records
// and can fail calls, and local blocks written into a tenant's directory.
import type { DiskFileSystem } from '../../sim/testing/index.js';
import { Labels } from '../model/index.js';
import {
  MemoryBucket,
  createSeededRandom,
  newMetricsRegistry,
  type Bucket,
  type MetricsRegistry,
  type ObjectAttributes,
  type UploadSource,
} from '../runtime/index.js';
import { ManualClock } from '../runtime/testing/index.js';
import { writeBlock, writeBlockMeta, type BlockMeta } from '../tsdb/index.js';

export const HOUR = 3_600_000;
export const START = 1_700_000_000_000;

/**
 * A MemoryBucket that records every call (`op name`), fails the calls `failOn` picks, and
 * counts the most calls in flight for distinct tenants at once (a call yields a few times
 * before it completes, so concurrent syncs overlap).
 */
export class RecordingBucket implements Bucket {
  readonly name = 'recording';
  readonly ops: string[] = [];
  failOn: (op: string, name: string) => boolean = () => false;
  /** Most distinct tenants with a call in flight at once. */
  maxConcurrentTenants = 0;
  private readonly inflight = new Map<string, number>();

  constructor(readonly inner: MemoryBucket) {}

  get(name: string): Promise<Uint8Array> {
    return this.call('get', name, () => this.inner.get(name));
  }
  getRange(name: string, offset: number, length: number): Promise<Uint8Array> {
    return this.call('getRange', name, () => this.inner.getRange(name, offset, length));
  }
  exists(name: string): Promise<boolean> {
    return this.call('exists', name, () => this.inner.exists(name));
  }
  upload(name: string, data: Uint8Array): Promise<void> {
    return this.call('upload', name, () => this.inner.upload(name, data));
  }
  /** Recorded as an upload: chunk segments and the index are shipped streamed. */
  uploadStream(name: string, source: UploadSource): Promise<void> {
    return this.call('upload', name, () => this.inner.uploadStream(name, source));
  }
  delete(name: string): Promise<void> {
    return this.call('delete', name, () => this.inner.delete(name));
  }
  list(dir: string, opts?: { recursive?: boolean }): Promise<string[]> {
    return this.call('list', dir, () => this.inner.list(dir, opts));
  }
  attributes(name: string): Promise<ObjectAttributes> {
    return this.call('attributes', name, () => this.inner.attributes(name));
  }
  close(): Promise<void> {
    return Promise.resolve();
  }

  /** The recorded uploads (object names), in order. */
  uploads(): string[] {
    return this.ops.filter((o) => o.startsWith('upload ')).map((o) => o.slice('upload '.length));
  }

  private async call<T>(op: string, name: string, run: () => Promise<T>): Promise<T> {
    this.ops.push(`${op} ${name}`);
    const tenant = name.split('/')[0] ?? '';
    this.inflight.set(tenant, (this.inflight.get(tenant) ?? 0) + 1);
    this.maxConcurrentTenants = Math.max(this.maxConcurrentTenants, this.inflight.size);
    try {
      for (let i = 0; i < 5; i++) await Promise.resolve();
      if (this.failOn(op, name)) throw new Error(`injected ${op} failure: ${name}`);
      return await run();
    } finally {
      const n = (this.inflight.get(tenant) ?? 1) - 1;
      if (n === 0) this.inflight.delete(tenant);
      else this.inflight.set(tenant, n);
    }
  }
}

export function recordingBucket(clock = new ManualClock(START)): RecordingBucket {
  return new RecordingBucket(new MemoryBucket({ clock }));
}

/**
 * Writes a level-1 block of one series with samples every minute in [mint, mint + span)
 * into `dir`, its ULID time `mint + span` (as if cut then), labelled like a tenant's block.
 */
export async function localBlock(
  fs: DiskFileSystem,
  dir: string,
  tenant: string,
  mint: number,
  span = 2 * HOUR,
): Promise<BlockMeta> {
  const n = Math.floor(span / 60_000);
  const ts = new Float64Array(n);
  const vs = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    ts[i] = mint + i * 60_000;
    vs[i] = i;
  }
  return writeBlock(
    dir,
    [{ labels: Labels.fromStrings('__name__', 'up', 'job', 'test'), timestamps: ts, values: vs }],
    { thanos: { labels: { __org_id__: tenant } }, meta: { maxTime: mint + span } },
    {
      fs,
      clock: new ManualClock(mint + span),
      random: createSeededRandom(`block-${mint}`).stream('ulid'),
    },
  );
}

/** Rewrites a local block's meta.json with `change` applied. */
export async function rewriteMeta(
  fs: DiskFileSystem,
  dir: string,
  meta: BlockMeta,
  change: (m: BlockMeta) => void,
): Promise<void> {
  const copy = structuredClone(meta);
  change(copy);
  await writeBlockMeta(`${dir}/${meta.ulid}`, copy, { fs });
}

/** A metric's value in the registry (0 when absent). */
export async function metricValue(registry: MetricsRegistry, name: string): Promise<number> {
  const m = registry.getSingleMetric(name);
  if (m === undefined) return 0;
  const values = (await m.get()).values;
  return values.reduce((sum, v) => sum + v.value, 0);
}

export { newMetricsRegistry };
