/**
 * Block discovery for one tenant (Thanos's MetaFetcher and Cortex's bucket-index fetcher):
 * the tenant's blocks from `<tenant>/bucket-index.json.gz` (default) or from a listing of
 * `<tenant>/` plus each block's meta.json, then the filters of meta_filters.ts.
 *
 * Failure containment is the point of this file: a missing or corrupted bucket index means
 * no blocks for that tenant (logged and counted); a block without meta.json (still being
 * uploaded) or with a corrupted one is left out alone (counted); only a failure to read the
 * listing or the index itself makes the fetch incomplete, and then the caller adds new
 * blocks but drops none.
 */
import {
  BucketIndexCorruptedError,
  BucketIndexNotFoundError,
  SEGMENTS_FORMAT_1B6D,
  readBucketIndex,
  type BucketIndex,
  type BucketIndexBlock,
} from '../bucket/index.js';
import { forEachBounded } from '../ingester/index.js';
import { isObjectNotFound, type Bucket, type Logger } from '../runtime/index.js';
import {
  BlockMetaError,
  isCanonicalUlid,
  parseBlockMeta,
  segmentFileName,
  type BlockMeta,
} from '../tsdb/index.js';
import { TENANT_ID_EXTERNAL_LABEL, type FilterContext, type MetaFilter } from './meta_filters.js';
import type { MetaSyncState, StoreGatewayMetrics } from './metrics.js';

export interface FetchResult {
  /** The blocks to hold, by ULID, after every filter. */
  readonly metas: Map<string, BlockMeta>;
  /** Blocks left out, by reason. */
  readonly synced: Map<MetaSyncState, number>;
  /** Set when the view is incomplete: load the new blocks in `metas` but drop nothing. */
  readonly error?: Error;
}

export interface MetaFetcher {
  fetch(signal?: AbortSignal): Promise<FetchResult>;
}

export interface MetaFetcherDeps {
  bucket: Bucket;
  logger: Logger;
  metrics: StoreGatewayMetrics;
  /** Runs in order on every successful fetch. */
  filters: readonly MetaFilter[];
  /** False when the tenant is not in this instance's shard: the fetch returns no blocks. */
  owned: () => boolean;
  /** The bucket index reader (the bucket module's, replaceable in tests). */
  readIndex?: (bucket: Bucket, tenant: string) => Promise<BucketIndex>;
}

async function runFilters(
  metas: Map<string, BlockMeta>,
  filters: readonly MetaFilter[],
  ctx: FilterContext,
): Promise<void> {
  for (const f of filters) await f.filter(metas, ctx);
  ctx.synced.set('loaded', metas.size);
}

/** Blocks from the tenant's bucket index (Cortex's BucketIndexMetadataFetcher). */
export class BucketIndexMetaFetcher implements MetaFetcher {
  constructor(
    private readonly tenant: string,
    private readonly deps: MetaFetcherDeps,
  ) {}

  async fetch(signal?: AbortSignal): Promise<FetchResult> {
    const synced = new Map<MetaSyncState, number>();
    if (!this.deps.owned()) return { metas: new Map(), synced };
    const { metrics, logger } = this.deps;
    metrics.metaSyncs.inc();
    metrics.bucketIndexLoads.inc();
    let index: BucketIndex;
    try {
      index = await (this.deps.readIndex ?? readBucketIndex)(this.deps.bucket, this.tenant);
    } catch (err) {
      if (err instanceof BucketIndexNotFoundError) {
        // Legitimate: the compactor has not written the first index of a new tenant yet.
        synced.set('no-bucket-index', 1);
        return { metas: new Map(), synced };
      }
      metrics.bucketIndexLoadFailures.inc();
      if (err instanceof BucketIndexCorruptedError) {
        // One tenant's bad index must not stop the gateway; its queries fail in the querier.
        logger.error('corrupted bucket index found; serving no blocks for the tenant', {
          tenant: this.tenant,
          err: err.message,
        });
        synced.set('corrupted-bucket-index', 1);
        return { metas: new Map(), synced };
      }
      metrics.metaSyncFailures.inc();
      synced.set('failed', 1);
      return { metas: new Map(), synced, error: asError(err, 'read bucket index') };
    }
    const metas = new Map<string, BlockMeta>();
    for (const b of index.blocks) metas.set(b.block_id, metaFromIndex(b, this.tenant));
    await runFilters(metas, this.deps.filters, {
      tenant: this.tenant,
      signal,
      synced,
      indexDeletionMarks: index.block_deletion_marks,
    });
    return { metas, synced };
  }
}

/**
 * A bucket index entry as a block meta (Cortex's Block.ThanosMeta): times, the tenant label
 * and the segment files; level, sources and stats are unknown until the block is opened.
 */
export function metaFromIndex(b: BucketIndexBlock, tenant: string): BlockMeta {
  const meta: BlockMeta = {
    ulid: b.block_id,
    minTime: b.min_time,
    maxTime: b.max_time,
    stats: { numSamples: 0, numSeries: 0, numChunks: 0, numTombstones: 0 },
    compaction: { level: 0, sources: [] },
    version: 1,
    thanos: {
      version: 1,
      labels: { [TENANT_ID_EXTERNAL_LABEL]: tenant },
      downsample: { resolution: 0 },
      source: '',
    },
  };
  if (b.segments_format === SEGMENTS_FORMAT_1B6D && (b.segments_num ?? 0) > 0 && meta.thanos) {
    meta.thanos.segment_files = Array.from({ length: b.segments_num ?? 0 }, (_, i) =>
      segmentFileName(i),
    );
  }
  return meta;
}

export interface ScanFetcherConfig {
  /** Workers reading meta.json files (`meta_sync_concurrency`). */
  concurrency: number;
}

/**
 * Blocks from a listing of `<tenant>/` and each block's meta.json (Thanos's MetaFetcher,
 * used when the bucket index is disabled). meta.json never changes once uploaded, so parsed
 * metas are kept in memory and only new blocks cost a read.
 */
export class BucketScanMetaFetcher implements MetaFetcher {
  private readonly cache = new Map<string, BlockMeta>();

  constructor(
    private readonly tenant: string,
    private readonly config: ScanFetcherConfig,
    private readonly deps: MetaFetcherDeps,
  ) {}

  async fetch(signal?: AbortSignal): Promise<FetchResult> {
    const synced = new Map<MetaSyncState, number>();
    if (!this.deps.owned()) return { metas: new Map(), synced };
    const { bucket, metrics, logger } = this.deps;
    metrics.metaSyncs.inc();
    let ids: string[];
    try {
      ids = blockIdsOf(await bucket.list(`${this.tenant}/`, signal ? { signal } : {}));
    } catch (err) {
      metrics.metaSyncFailures.inc();
      synced.set('failed', 1);
      return { metas: new Map(), synced, error: asError(err, `list ${this.tenant}/`) };
    }
    const metas = new Map<string, BlockMeta>();
    const failures: string[] = [];
    const count = (s: MetaSyncState): void => void synced.set(s, (synced.get(s) ?? 0) + 1);
    await forEachBounded(ids, this.config.concurrency, async (id) => {
      const cached = this.cache.get(id);
      if (cached !== undefined) {
        metas.set(id, cached);
        return;
      }
      const path = `${this.tenant}/${id}/meta.json`;
      try {
        const bytes = await bucket.get(path, signal ? { signal } : {});
        const meta = parseBlockMeta(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
        if (meta.ulid !== id) throw new BlockMetaError(`meta.json names block ${meta.ulid}`);
        this.cache.set(id, meta);
        metas.set(id, meta);
      } catch (err) {
        if (isObjectNotFound(err)) {
          // A partial block (upload in progress or abandoned): not an error.
          count('no-meta-json');
        } else if (err instanceof BlockMetaError || err instanceof TypeError) {
          count('corrupted-meta-json');
          logger.error('corrupted meta.json; the block is not loaded', {
            tenant: this.tenant,
            block: id,
            err: (err as Error).message,
          });
        } else {
          failures.push(`${path}: ${(err as Error).message}`);
        }
      }
    });
    for (const id of this.cache.keys()) if (!ids.includes(id)) this.cache.delete(id);
    await runFilters(metas, this.deps.filters, { tenant: this.tenant, signal, synced });
    if (failures.length > 0) {
      metrics.metaSyncFailures.inc();
      count('failed');
      return {
        metas,
        synced,
        error: new Error(`incomplete view of ${this.tenant}'s blocks: ${failures.join('; ')}`),
      };
    }
    return { metas, synced };
  }
}

/** Block ULIDs among the entries of a tenant listing (directories named by a ULID). */
function blockIdsOf(entries: readonly string[]): string[] {
  const out: string[] = [];
  for (const e of entries) {
    if (!e.endsWith('/')) continue;
    const name = e.slice(0, -1).slice(e.slice(0, -1).lastIndexOf('/') + 1);
    if (isCanonicalUlid(name)) out.push(name);
  }
  return out;
}

function asError(err: unknown, what: string): Error {
  return new Error(`${what}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
}
