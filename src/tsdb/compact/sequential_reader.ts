// Opening a source block for a compaction, which reads every series entry of the index and
// every chunk of the segments in file order: both go through read-ahead windows, so a series
// or a chunk is not a file read of its own. The windows are bounded (1 MiB per file), never
// the whole file.
import type { FileSystem } from '../../runtime/index.js';
import {
  BlockReader,
  FileSegmentSource,
  ReadAheadSegmentSource,
  readBlockMeta,
  readTombstones,
} from '../block/index.js';
import { openFileSource, readAheadSource } from '../index/index.js';

/** A BlockReader over the block in `dir` tuned for one in-order walk of all its series. */
export async function openBlockForWalk(
  dir: string,
  deps: { fs: FileSystem },
): Promise<BlockReader> {
  const meta = await readBlockMeta(dir, deps);
  const { tombstones } = await readTombstones(dir, deps);
  const index = await openFileSource(deps.fs, `${dir}/index`);
  let segments: FileSegmentSource;
  try {
    segments = await FileSegmentSource.open(`${dir}/chunks`, deps);
  } catch (err) {
    await index.close();
    throw err;
  }
  const close = async (): Promise<void> => {
    await index.close();
    await segments.close();
  };
  try {
    return await BlockReader.fromParts({
      meta,
      index: readAheadSource(index),
      segments: new ReadAheadSegmentSource(segments),
      tombstones,
      close,
    });
  } catch (err) {
    await close();
    throw err;
  }
}
