import { describe, expect, it } from 'vitest';
import { DiskFileSystem } from '../../sim/testing/index.js';
import { Labels } from '../model/index.js';
import {
  MemoryBucket,
  createSeededRandom,
  type Bucket,
  type FileHandle,
  type FileStat,
  type FileSystem,
  type OpenMode,
  type UploadSource,
} from '../runtime/index.js';
import { ManualClock } from '../runtime/testing/index.js';
import {
  parseBlockMeta,
  serializeBlockMeta,
  writeBlock,
  type BlockMeta,
  type BlockSeriesInput,
} from '../tsdb/index.js';
import { BlockUploadError, uploadBlock } from './block_upload.js';

const START = 1_700_000_000_000;
const TENANT = 'team-a';
const DIR = '/data/tsdb/team-a';
const LABELS = { __org_id__: TENANT, __ingester_id__: 'ingester-7' };

/** A bucket that records every call and fails the calls `failOn` picks. */
class RecordingBucket implements Bucket {
  readonly name = 'recording';
  readonly ops: string[] = [];
  failOn: (op: string, name: string) => boolean = () => false;
  constructor(readonly inner: MemoryBucket) {}
  private check(op: string, name: string): void {
    this.ops.push(`${op} ${name}`);
    if (this.failOn(op, name)) throw new Error(`injected ${op} failure: ${name}`);
  }
  async get(name: string): Promise<Uint8Array> {
    this.check('get', name);
    return this.inner.get(name);
  }
  async getRange(name: string, offset: number, length: number): Promise<Uint8Array> {
    this.check('getRange', name);
    return this.inner.getRange(name, offset, length);
  }
  async exists(name: string): Promise<boolean> {
    this.check('exists', name);
    return this.inner.exists(name);
  }
  async upload(name: string, data: Uint8Array): Promise<void> {
    this.check('upload', name);
    return this.inner.upload(name, data);
  }
  /** Recorded as `stream`: which objects went up streamed is part of what is tested. */
  async uploadStream(name: string, source: UploadSource): Promise<void> {
    this.check('stream', name);
    return this.inner.uploadStream(name, source);
  }
  async delete(name: string): Promise<void> {
    this.check('delete', name);
    return this.inner.delete(name);
  }
  async list(dir: string, opts?: { recursive?: boolean }): Promise<string[]> {
    this.check('list', dir);
    return this.inner.list(dir, opts);
  }
  async attributes(name: string) {
    this.check('attributes', name);
    return this.inner.attributes(name);
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

function input(series: number, samples: number): BlockSeriesInput[] {
  const out: BlockSeriesInput[] = [];
  for (let s = 0; s < series; s++) {
    const ts = new Float64Array(samples);
    const vs = new Float64Array(samples);
    for (let i = 0; i < samples; i++) {
      ts[i] = START + i * 15_000;
      vs[i] = s * 1000 + i;
    }
    out.push({
      labels: Labels.fromStrings('__name__', 'up', 'i', String(s)),
      timestamps: ts,
      values: vs,
    });
  }
  return out;
}

async function localBlock(
  fs: DiskFileSystem,
  opts: { segmentSize?: number; series?: number } = {},
): Promise<BlockMeta> {
  const clock = new ManualClock(START + 3_600_000);
  return writeBlock(
    DIR,
    input(opts.series ?? 3, 240),
    {
      thanos: { labels: { __org_id__: TENANT } },
      ...(opts.segmentSize === undefined ? {} : { segmentSize: opts.segmentSize }),
    },
    { fs, clock, random: createSeededRandom('block-upload-test').stream('ulid') },
  );
}

/** A FileSystem that records whole-file reads and the largest single read of an open file. */
class ReadRecordingFs implements FileSystem {
  readonly wholeReads: string[] = [];
  largestRead = 0;
  constructor(private readonly inner: FileSystem) {}
  async open(path: string, mode: OpenMode): Promise<FileHandle> {
    const handle = await this.inner.open(path, mode);
    const read = handle.read.bind(handle);
    handle.read = async (position: number, length: number): Promise<Uint8Array> => {
      this.largestRead = Math.max(this.largestRead, length);
      return read(position, length);
    };
    return handle;
  }
  readFile(path: string): Promise<Uint8Array> {
    this.wholeReads.push(path);
    return this.inner.readFile(path);
  }
  writeFile(path: string, data: Uint8Array | string): Promise<void> {
    return this.inner.writeFile(path, data);
  }
  mkdir(path: string, opts?: { recursive?: boolean }): Promise<void> {
    return this.inner.mkdir(path, opts);
  }
  readdir(path: string): Promise<string[]> {
    return this.inner.readdir(path);
  }
  stat(path: string): Promise<FileStat | undefined> {
    return this.inner.stat(path);
  }
  exists(path: string): Promise<boolean> {
    return this.inner.exists(path);
  }
  rename(from: string, to: string): Promise<void> {
    return this.inner.rename(from, to);
  }
  remove(path: string, opts?: { recursive?: boolean }): Promise<void> {
    return this.inner.remove(path, opts);
  }
  syncDir(path: string): Promise<void> {
    return this.inner.syncDir(path);
  }
}

function setup(): { fs: DiskFileSystem; bucket: RecordingBucket } {
  const clock = new ManualClock(START);
  return { fs: new DiskFileSystem(), bucket: new RecordingBucket(new MemoryBucket({ clock })) };
}

describe('uploadBlock', () => {
  it('uploads chunk segments, then the index, then meta.json last; never the tombstones', async () => {
    const { fs, bucket } = setup();
    // Small segments: several chunk files, uploaded in order.
    const local = await localBlock(fs, { segmentSize: 1024, series: 40 });
    const segments = (await fs.readdir(`${DIR}/${local.ulid}/chunks`)).sort();
    expect(segments.length).toBeGreaterThan(1);
    await uploadBlock(
      bucket,
      TENANT,
      `${DIR}/${local.ulid}`,
      { labels: LABELS, source: 'receive' },
      { fs },
    );
    const prefix = `${TENANT}/${local.ulid}`;
    expect(bucket.ops).toEqual([
      ...segments.map((s) => `stream ${prefix}/chunks/${s}`),
      `stream ${prefix}/index`,
      `upload ${prefix}/meta.json`,
    ]);
    expect(await fs.exists(`${DIR}/${local.ulid}/tombstones`)).toBe(true);
    expect(await bucket.inner.list(`${prefix}/`, { recursive: true })).not.toContain(
      `${prefix}/tombstones`,
    );
    // The objects are the local files, byte for byte.
    for (const s of segments)
      expect(await bucket.inner.get(`${prefix}/chunks/${s}`)).toEqual(
        await fs.readFile(`${DIR}/${local.ulid}/chunks/${s}`),
      );
    expect(await bucket.inner.get(`${prefix}/index`)).toEqual(
      await fs.readFile(`${DIR}/${local.ulid}/index`),
    );
  });

  it('streams chunk segments and the index: no file is read whole, no read exceeds the chunk size', async () => {
    const { fs: disk, bucket } = setup();
    const local = await localBlock(disk, { segmentSize: 64 * 1024, series: 200 });
    const dir = `${DIR}/${local.ulid}`;
    const segments = await disk.readdir(`${dir}/chunks`);
    const sizes = await Promise.all(
      [...segments.map((s) => `${dir}/chunks/${s}`), `${dir}/index`].map(
        async (f) => (await disk.stat(f))?.size ?? 0,
      ),
    );
    const chunkBytes = 4096;
    // Every file spans several reads, so a whole-file read could not pass as one chunk.
    expect(Math.min(...sizes)).toBeGreaterThan(2 * chunkBytes);
    const fs = new ReadRecordingFs(disk);
    await uploadBlock(
      bucket,
      TENANT,
      dir,
      { labels: LABELS, source: 'receive' },
      { fs, uploadChunkBytes: chunkBytes },
    );
    expect(fs.wholeReads.filter((p) => p.includes('/chunks/') || p.endsWith('/index'))).toEqual([]);
    expect(fs.largestRead).toBeGreaterThan(0);
    expect(fs.largestRead).toBeLessThanOrEqual(chunkBytes);
    const prefix = `${TENANT}/${local.ulid}`;
    for (const s of segments)
      expect(await bucket.inner.get(`${prefix}/chunks/${s}`)).toEqual(
        await disk.readFile(`${dir}/chunks/${s}`),
      );
    expect(await bucket.inner.get(`${prefix}/index`)).toEqual(await disk.readFile(`${dir}/index`));
  });

  it('writes meta.json as a Cortex ingester does: labels, source, segment_files, files with sizes', async () => {
    const { fs, bucket } = setup();
    const local = await localBlock(fs);
    const dir = `${DIR}/${local.ulid}`;
    const returned = await uploadBlock(
      bucket,
      TENANT,
      dir,
      { labels: LABELS, source: 'receive' },
      { fs },
    );
    const text = new TextDecoder().decode(
      await bucket.inner.get(`${TENANT}/${local.ulid}/meta.json`),
    );
    const meta = parseBlockMeta(text);
    expect(meta).toEqual(returned);
    // Everything Prometheus wrote is kept as it was.
    expect({ ...meta, thanos: undefined }).toEqual({ ...local, thanos: undefined });
    const chunkSize = (await fs.stat(`${dir}/chunks/000001`))!.size;
    const indexSize = (await fs.stat(`${dir}/index`))!.size;
    expect(meta.thanos).toEqual({
      labels: { __ingester_id__: 'ingester-7', __org_id__: TENANT },
      downsample: { resolution: 0 },
      source: 'receive',
      segment_files: ['000001'],
      files: [
        { rel_path: 'chunks/000001', size_bytes: chunkSize },
        { rel_path: 'index', size_bytes: indexSize },
        { rel_path: 'meta.json' },
      ],
      // Strata's blocks carry their exact index stats (Cortex's ingesters leave them empty).
      index_stats: local.thanos?.index_stats,
    });
    expect(meta.thanos?.index_stats?.series_max_size).toBeGreaterThan(0);
    // Go's json.Encoder layout: tab indent, Go's key order, trailing newline.
    expect(text).toBe(serializeBlockMeta(meta, { style: 'thanos' }));
    expect(text.endsWith('}\n')).toBe(true);
    expect(text).toContain(
      [
        '\t"thanos": {',
        '\t\t"labels": {',
        '\t\t\t"__ingester_id__": "ingester-7",',
        `\t\t\t"__org_id__": "${TENANT}"`,
        '\t\t},',
        '\t\t"downsample": {',
        '\t\t\t"resolution": 0',
        '\t\t},',
        '\t\t"source": "receive",',
        '\t\t"segment_files": [',
        '\t\t\t"000001"',
        '\t\t],',
        '\t\t"files": [',
        '\t\t\t{',
        '\t\t\t\t"rel_path": "chunks/000001",',
        `\t\t\t\t"size_bytes": ${chunkSize}`,
        '\t\t\t},',
        '\t\t\t{',
        '\t\t\t\t"rel_path": "index",',
        `\t\t\t\t"size_bytes": ${indexSize}`,
        '\t\t\t},',
        '\t\t\t{',
        '\t\t\t\t"rel_path": "meta.json"',
        '\t\t\t}',
        '\t\t],',
        '\t\t"index_stats": {',
        `\t\t\t"series_max_size": ${meta.thanos?.index_stats?.series_max_size},`,
        `\t\t\t"chunk_max_size": ${meta.thanos?.index_stats?.chunk_max_size}`,
        '\t\t}',
        '\t}',
        '}',
        '',
      ].join('\n'),
    );
    // The local meta.json is left as it was.
    expect(parseBlockMeta(new TextDecoder().decode(await fs.readFile(`${dir}/meta.json`)))).toEqual(
      local,
    );
  });

  it('removes what it uploaded when a chunk segment or the index fails; meta.json never goes up', async () => {
    for (const failing of ['/chunks/', '/index']) {
      const { fs, bucket } = setup();
      const local = await localBlock(fs);
      bucket.failOn = (op, name) => op === 'stream' && name.includes(failing);
      const err = await uploadBlock(
        bucket,
        TENANT,
        `${DIR}/${local.ulid}`,
        { labels: LABELS, source: 'receive' },
        { fs },
      ).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BlockUploadError);
      expect(String(err)).toContain(failing === '/index' ? 'the index' : 'the chunks');
      expect(String(err)).toContain('injected stream failure');
      expect(bucket.ops.some((o) => o.endsWith('meta.json') && o.startsWith('upload'))).toBe(false);
      expect(await bucket.inner.list('', { recursive: true })).toEqual([]);
    }
  });

  it('leaves chunks and index in place when meta.json fails (it may have landed anyway)', async () => {
    const { fs, bucket } = setup();
    const local = await localBlock(fs);
    bucket.failOn = (op, name) => op === 'upload' && name.endsWith('/meta.json');
    await expect(
      uploadBlock(
        bucket,
        TENANT,
        `${DIR}/${local.ulid}`,
        { labels: LABELS, source: 'receive' },
        { fs },
      ),
    ).rejects.toThrow(/injected upload failure/);
    expect(await bucket.inner.list(`${TENANT}/${local.ulid}/`, { recursive: true })).toEqual([
      `${TENANT}/${local.ulid}/chunks/000001`,
      `${TENANT}/${local.ulid}/index`,
    ]);
    expect(bucket.ops.filter((o) => o.startsWith('delete'))).toEqual([]);
  });

  it('refuses a block without external labels, uploading nothing', async () => {
    const { fs, bucket } = setup();
    const clock = new ManualClock(START);
    const local = await writeBlock(
      DIR,
      input(1, 10),
      {},
      {
        fs,
        clock,
        random: createSeededRandom('no-labels').stream('ulid'),
      },
    );
    await expect(
      uploadBlock(
        bucket,
        TENANT,
        `${DIR}/${local.ulid}`,
        { labels: {}, source: 'receive' },
        { fs },
      ),
    ).rejects.toThrow(/empty external labels/);
    expect(bucket.ops).toEqual([]);
  });
});
