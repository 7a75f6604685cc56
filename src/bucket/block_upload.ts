// Uploading one local block directory into a tenant's part of the bucket, object for object
// as Thanos's block.Upload does it for a Cortex ingester's shipper: the chunk segments, then
// the index, then meta.json LAST, so a block directory without meta.json is known to be a
// partial upload (readers skip it, the compactor's cleaner removes it). The meta.json
// uploaded is the local one plus the Thanos section the bucket's readers rely on: external
// labels, source, downsampling resolution, `segment_files` and `files` (rel_path, size). The
// tombstones file is never uploaded (Cortex's blocks carry no deletions). Chunk segments (up
// to 512 MiB) and the index are streamed from the local files a bounded piece at a time, so
// uploading a block takes memory independent of its size.
import { fileSource, type Bucket, type FileSystem, type Logger } from '../runtime/index.js';
import {
  META_FILENAME,
  readBlockMeta,
  serializeBlockMeta,
  type BlockMeta,
  type ThanosFile,
  type ThanosMeta,
} from '../tsdb/index.js';
import { deleteBlock } from './block_delete.js';
import { CHUNKS_DIR, INDEX_FILE, META_JSON, blockDir as bucketBlockDir } from './layout.js';

export interface BlockUploadOptions {
  /**
   * External labels added to the block's (`thanos.labels`); a label already there is
   * overwritten. Thanos refuses a block left without any.
   */
  readonly labels: Readonly<Record<string, string>>;
  /** `thanos.source`: `receive` for an ingester's blocks. */
  readonly source: string;
}

export interface BlockUploadDeps {
  readonly fs: FileSystem;
  readonly logger?: Logger;
  /** Bytes per read of a local file while it is uploaded (default DEFAULT_UPLOAD_CHUNK_BYTES). */
  readonly uploadChunkBytes?: number;
}

/** The upload stopped before meta.json was written; what was uploaded has been removed. */
export class BlockUploadError extends Error {
  override readonly name = 'BlockUploadError';
}

/**
 * Uploads the block in the local directory `dir` (named by its ULID) to
 * `<tenant>/<ulid>/…` and returns the meta.json it uploaded. A failure uploading a chunk
 * segment or the index removes what was uploaded of the block (best effort, as Thanos's
 * cleanUp), so no partial block is left when it can be helped. A failure uploading meta.json
 * removes nothing: the object store may have stored it anyway (S3 answering 503 SlowDown),
 * and a block directory without meta.json is cleaned up by the compactor later.
 */
export async function uploadBlock(
  bucket: Bucket,
  tenant: string,
  dir: string,
  opts: BlockUploadOptions,
  deps: BlockUploadDeps,
): Promise<BlockMeta> {
  const local = await readBlockMeta(dir, deps);
  const prefix = bucketBlockDir(tenant, local.ulid);
  const labels = { ...(local.thanos?.labels ?? {}), ...opts.labels };
  if (Object.keys(labels).length === 0)
    throw new BlockUploadError(
      `block ${local.ulid}: empty external labels are not allowed for a Thanos block`,
    );
  const segments = await segmentFiles(dir, deps.fs);
  const files = await fileStats(dir, segments, deps.fs);
  const thanos: ThanosMeta = {
    ...local.thanos,
    labels,
    downsample: { resolution: local.thanos?.downsample.resolution ?? 0 },
    source: opts.source,
    segment_files: segments,
    files,
    // Thanos's IndexStats is a struct field: Go's omitempty never drops it, so an ingester's
    // upload carries an empty object (the compactor fills it for the blocks it writes).
    index_stats: local.thanos?.index_stats ?? {},
  };
  const meta: BlockMeta = { ...local, thanos };
  const metaBytes = new TextEncoder().encode(serializeBlockMeta(meta, { style: 'thanos' }));

  const sizes = new Map(files.map((f) => [f.rel_path, f.size_bytes ?? 0]));
  const uploadFile = (rel: string): Promise<void> =>
    bucket.uploadStream(
      `${prefix}/${rel}`,
      fileSource(deps.fs, `${dir}/${rel}`, sizes.get(rel) ?? 0, deps.uploadChunkBytes),
    );

  let step = 'the chunks';
  try {
    for (const segment of segments) await uploadFile(`${CHUNKS_DIR}/${segment}`);
    step = 'the index';
    await uploadFile(INDEX_FILE);
  } catch (err) {
    await removePartial(bucket, tenant, local.ulid, deps.logger);
    throw new BlockUploadError(`block ${local.ulid}: uploading ${step} failed: ${errorText(err)}`, {
      cause: err,
    });
  }
  // Last: from here on the block is visible to every reader of the bucket.
  await bucket.upload(`${prefix}/${META_JSON}`, metaBytes);
  return meta;
}

/** The chunk segment file names of a block, sorted (Thanos's GetSegmentFiles). */
async function segmentFiles(dir: string, fs: FileSystem): Promise<string[]> {
  const chunks = `${dir}/${CHUNKS_DIR}`;
  const names: string[] = [];
  for (const name of await fs.readdir(chunks)) {
    if ((await fs.stat(`${chunks}/${name}`))?.isDirectory === false) names.push(name);
  }
  return names.sort(compareBytes);
}

/**
 * `thanos.files` as Thanos's GatherFileStats writes it: every chunk segment and the index
 * with their sizes, and meta.json without one (its final size is not known while it is being
 * written), sorted by relative path.
 */
async function fileStats(dir: string, segments: string[], fs: FileSystem): Promise<ThanosFile[]> {
  const files: ThanosFile[] = [];
  for (const segment of segments)
    files.push({
      rel_path: `${CHUNKS_DIR}/${segment}`,
      size_bytes: await sizeOf(fs, `${dir}/${CHUNKS_DIR}/${segment}`),
    });
  files.push({ rel_path: INDEX_FILE, size_bytes: await sizeOf(fs, `${dir}/${INDEX_FILE}`) });
  files.push({ rel_path: META_FILENAME });
  return files.sort((a, b) => compareBytes(a.rel_path, b.rel_path));
}

async function sizeOf(fs: FileSystem, path: string): Promise<number> {
  const st = await fs.stat(path);
  if (st === undefined || st.isDirectory) throw new BlockUploadError(`${path}: no such file`);
  return st.size;
}

/**
 * Removes what an aborted upload left (Thanos cleanUp: block.Delete). What cannot be removed
 * stays a partial block, which the compactor's cleaner deletes later.
 */
async function removePartial(
  bucket: Bucket,
  tenant: string,
  ulid: string,
  logger: Logger | undefined,
): Promise<void> {
  try {
    await deleteBlock(bucket, tenant, ulid);
  } catch (err) {
    logger?.warn('failed to clean up a partial block upload; a partial block is left', {
      tenant,
      block: ulid,
      err: errorText(err),
    });
  }
}

/** Go's strings.Compare for the ASCII names of block files. */
function compareBytes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
