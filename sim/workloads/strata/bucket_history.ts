import { decodeBucketIndex, type BucketIndex } from '../../../src/bucket/index.js';
import { parseBlockMeta, type BlockMeta } from '../../../src/tsdb/index.js';
import type { ObjectStoreEvent } from '../../runtime/index.js';

const ULID = '[0-9A-HJKMNP-TV-Z]{26}';
/** `<tenant>/<block>/<file>`: an object of a block. */
export const BLOCK_OBJECT = new RegExp(`^([^/]+)/(${ULID})/(.+)$`);
/** Either copy of a block's deletion mark: in the block, or the global one under `markers/`. */
export const DELETION_MARK = new RegExp(
  `^([^/]+)/(?:(${ULID})/deletion-mark\\.json|markers/(${ULID})-deletion-mark\\.json)$`,
);
const BUCKET_INDEX = /^([^/]+)\/bucket-index\.json\.gz$/;

/** A block's meta.json as uploaded (the history keeps its content). */
export interface UploadedMeta {
  tenant: string;
  ulid: string;
  meta: BlockMeta;
  uploadedAt: number;
  /** The node that uploaded it. */
  by: string | undefined;
}

/** Every meta.json upload whose content parses, in order (rewrites of a block included). */
export function uploadedMetas(history: readonly ObjectStoreEvent[]): UploadedMeta[] {
  const out: UploadedMeta[] = [];
  const decoder = new TextDecoder();
  for (const e of history) {
    if (e.op !== 'upload' || e.content === undefined) continue;
    const m = BLOCK_OBJECT.exec(e.name);
    if (m === null || m[3] !== 'meta.json') continue;
    let meta: BlockMeta;
    try {
      meta = parseBlockMeta(decoder.decode(e.content));
    } catch {
      continue;
    }
    out.push({ tenant: m[1] as string, ulid: m[2] as string, meta, uploadedAt: e.at, by: e.by });
  }
  return out;
}

/** Whether a meta.json describes a block the compactor made (not one an ingester shipped). */
export function madeByCompactor(meta: BlockMeta): boolean {
  return meta.thanos?.source === 'compactor' || meta.compaction.level > 1;
}

/** What the bucket holds at some time, replayed from the history. */
export interface BucketState {
  /** Every object name present. */
  objects: Set<string>;
  /** `<tenant>/<ulid>` of blocks whose meta.json is present, with the last meta uploaded. */
  blocks: Map<string, UploadedMeta>;
  /** `<tenant>/<ulid>` of blocks with a deletion mark (either copy) present. */
  marked: Set<string>;
  /** `<tenant>/<ulid>` of blocks with objects but no meta.json (partial blocks). */
  partial: Set<string>;
}

/** The bucket's content after every event up to and including time `until`. */
export function bucketStateAt(
  history: readonly ObjectStoreEvent[],
  until = Number.POSITIVE_INFINITY,
): BucketState {
  const objects = new Set<string>();
  const metaByKey = new Map<string, UploadedMeta>();
  for (const m of uploadedMetas(history.filter((e) => e.at <= until)))
    metaByKey.set(`${m.tenant}/${m.ulid}`, m);
  for (const e of history) {
    if (e.at > until) break;
    if (e.op === 'upload') objects.add(e.name);
    else objects.delete(e.name);
  }
  const blocks = new Map<string, UploadedMeta>();
  const marked = new Set<string>();
  const withObjects = new Set<string>();
  for (const name of objects) {
    const mark = DELETION_MARK.exec(name);
    if (mark !== null) marked.add(`${mark[1]}/${mark[2] ?? mark[3]}`);
    const obj = BLOCK_OBJECT.exec(name);
    if (obj === null) continue;
    const key = `${obj[1]}/${obj[2]}`;
    withObjects.add(key);
    if (obj[3] === 'meta.json') {
      const meta = metaByKey.get(key);
      if (meta !== undefined) blocks.set(key, meta);
    }
  }
  const partial = new Set([...withObjects].filter((k) => !blocks.has(k)));
  return { objects, blocks, marked, partial };
}

/** The last bucket index each tenant's cleaner wrote, decoded, with when it was written. */
export function lastBucketIndexes(
  history: readonly ObjectStoreEvent[],
): Map<string, { at: number; index: BucketIndex | Error; by: string | undefined }> {
  const out = new Map<string, { at: number; index: BucketIndex | Error; by: string | undefined }>();
  for (const e of history) {
    const m = BUCKET_INDEX.exec(e.name);
    if (m === null) continue;
    const tenant = m[1] as string;
    if (e.op === 'delete') {
      out.delete(tenant);
      continue;
    }
    if (e.content === undefined) continue;
    let index: BucketIndex | Error;
    try {
      index = decodeBucketIndex(e.content, e.name);
    } catch (err) {
      index = err instanceof Error ? err : new Error(String(err));
    }
    out.set(tenant, { at: e.at, index, by: e.by });
  }
  return out;
}
