/**
 * Downloading the planned source blocks into the group's work directory (Thanos's
 * block.Download): meta.json, the index and the chunk segments of each block, the files of all
 * blocks `block_sync_concurrency` at a time, each in ranged reads appended to the local file so
 * memory holds one part per worker, never a whole segment.
 *
 * The files are those meta.json lists in `thanos.files` (so a listing that lags behind, as
 * object stores' listings may, cannot hide one), else those a listing of the block finds. A
 * listed file that is missing while the block's meta.json is still there makes the block
 * corrupt; when meta.json is gone too, the block is being deleted and the download fails
 * (retried later).
 */
import {
  CHUNKS_DIR,
  INDEX_FILE,
  META_JSON,
  blockDir as bucketBlockDir,
  blockMetaPath,
} from '../bucket/index.js';
import { isObjectNotFound, type Bucket, type FileSystem } from '../runtime/index.js';
import type { BlockMeta } from '../tsdb/index.js';
import { CorruptBlockError } from './compaction_errors.js';
import { forEachConcurrently } from './concurrency.js';

/** Bytes fetched per ranged read. */
export const DOWNLOAD_PART_BYTES = 8 * 1024 * 1024;

export interface DownloadDeps {
  bucket: Bucket;
  fs: FileSystem;
}

interface FileToFetch {
  block: string;
  /** Relative to the block directory: `meta.json`, `index`, `chunks/000001`… */
  rel: string;
  /** From meta.json, when it says. */
  size: number | undefined;
}

/** A block file compaction needs: the index and the chunk segments. */
function isDataFile(rel: string): boolean {
  return rel === INDEX_FILE || /^chunks\/\d+$/.test(rel);
}

/** Downloads each block of `metas` into `<dir>/<ulid>/`. */
export async function downloadBlocks(
  tenant: string,
  metas: readonly BlockMeta[],
  dir: string,
  concurrency: number,
  deps: DownloadDeps,
  signal?: AbortSignal,
): Promise<void> {
  const files: FileToFetch[] = [];
  for (const meta of metas) {
    const block = meta.ulid;
    await deps.fs.mkdir(`${dir}/${block}/${CHUNKS_DIR}`, { recursive: true });
    files.push({ block, rel: META_JSON, size: undefined });
    const listed = (meta.thanos?.files ?? []).filter((f) => isDataFile(f.rel_path));
    if (listed.length > 0) {
      for (const f of listed) files.push({ block, rel: f.rel_path, size: f.size_bytes });
    } else {
      const prefix = `${bucketBlockDir(tenant, block)}/`;
      const names = await deps.bucket.list(prefix, { recursive: true, ...signalOpt(signal) });
      for (const name of names) {
        const rel = name.slice(prefix.length);
        if (isDataFile(rel)) files.push({ block, rel, size: undefined });
      }
    }
  }
  const failures = await forEachConcurrently(
    files,
    concurrency,
    (f) => fetchFile(tenant, f, `${dir}/${f.block}/${f.rel}`, deps, signal),
    signal,
  );
  if (failures.length > 0) throw (failures[0] as { error: Error }).error;
}

async function fetchFile(
  tenant: string,
  f: FileToFetch,
  local: string,
  deps: DownloadDeps,
  signal: AbortSignal | undefined,
): Promise<void> {
  const name = `${bucketBlockDir(tenant, f.block)}/${f.rel}`;
  const opts = signalOpt(signal);
  const handle = await deps.fs.open(local, 'w');
  try {
    const size = f.size ?? (await deps.bucket.attributes(name, opts)).size;
    if (size <= DOWNLOAD_PART_BYTES) {
      const data = await deps.bucket.get(name, opts);
      if (f.size !== undefined && data.length !== f.size) {
        throw new CorruptBlockError(
          f.block,
          'corrupted',
          `${f.rel} has ${data.length} bytes, meta.json says ${f.size}`,
        );
      }
      await handle.append(data);
    } else {
      for (let offset = 0; offset < size; offset += DOWNLOAD_PART_BYTES) {
        const length = Math.min(DOWNLOAD_PART_BYTES, size - offset);
        const part = await deps.bucket.getRange(name, offset, length, opts);
        if (part.length !== length) {
          throw new CorruptBlockError(
            f.block,
            'corrupted',
            `${f.rel} is shorter than the ${size} bytes meta.json gives it`,
          );
        }
        await handle.append(part);
      }
    }
  } catch (err) {
    if (!isObjectNotFound(err)) throw err;
    if (!(await deps.bucket.exists(blockMetaPath(tenant, f.block), opts))) {
      throw new Error(`block ${f.block} disappeared from the bucket while it was downloaded`, {
        cause: err,
      });
    }
    throw new CorruptBlockError(f.block, 'corrupted', `${f.rel} is missing from the bucket`, {
      cause: err,
    });
  } finally {
    await handle.close();
  }
}

function signalOpt(signal: AbortSignal | undefined): { signal?: AbortSignal } {
  return signal === undefined ? {} : { signal };
}
