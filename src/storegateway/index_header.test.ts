import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DiskFileSystem } from '../../sim/testing/index.js';
import { blockIndexPath } from '../bucket/layout.js';
import { Labels } from '../model/index.js';
import { MemoryBucket, createSeededRandom } from '../runtime/index.js';
import { ManualClock } from '../runtime/testing/index.js';
import { writeBlock, type BlockSeriesInput } from '../tsdb/block/index.js';
import { crc32c } from '../tsdb/encoding/index.js';
import { IndexReader, bytesSource, decodeToc } from '../tsdb/index/index.js';
import { CountingBucket, shipBlock } from './bucket_block.testing.js';
import { BucketBlockError } from './bucket_block_error.js';
import { IndexHeaderError, buildIndexHeader, INDEX_HEADER_FILENAME } from './index_header.js';
import { ensureIndexHeader, openHeaderIndex } from './index_header_reader.js';

const TENANT = 'tenant-1';
const NOW = 1_700_000_000_000;

function env() {
  const fs = new DiskFileSystem();
  const clock = new ManualClock(NOW);
  const bucket = new CountingBucket(new MemoryBucket({ clock }));
  return { fs, clock, bucket, random: createSeededRandom('index-header').stream('ulid') };
}

type Env = ReturnType<typeof env>;

/** Writes `input` as a block, ships it and returns its id and raw index bytes. */
async function shipped(e: Env, input: BlockSeriesInput[]) {
  const meta = await writeBlock('/local', input, {}, e);
  await shipBlock(e.fs, '/local', meta.ulid, e.bucket, TENANT);
  e.bucket.reset();
  return { blockId: meta.ulid, index: await e.fs.readFile(`/local/${meta.ulid}/index`) };
}

function series(labels: Record<string, string>, n: number, seed: number): BlockSeriesInput {
  const ts = new Float64Array(n);
  const vs = new Float64Array(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    ts[i] = i * 10;
    // A cheap deterministic generator: varied bits make chunk sizes realistic.
    x = (x * 1103515245 + 12345) % 2147483648;
    vs[i] = x / 7919;
  }
  return { labels: Labels.fromObject(labels), timestamps: ts, values: vs };
}

/** The series of Thanos's TestReaders block (pkg/block/indexheader/header_test.go). */
function thanosTestSeries(): BlockSeriesInput[] {
  const sets: Array<Record<string, string>> = [];
  for (const v of ['1', '2', '3', '4', '5', '6', '7', '8', '9', '11', '12', '13'])
    sets.push({ a: v });
  sets.push({ a: '1', 'longer-string': '1' }, { a: '1', 'longer-string': '2' });
  return sets.map((s, i) => series(s, 100, i + 1));
}

const be32 = (n: number) => {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n);
  return b;
};
const be64 = (n: number) => {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, BigInt(n));
  return b;
};
const flip = (b: Uint8Array, at: number, mask: number): Uint8Array => {
  b[at] = (b[at] as number) ^ mask;
  return b;
};
const concat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

describe('index-header format', () => {
  it('is byte for byte what Thanos writes for its TestReaders block', async () => {
    const e = env();
    const { blockId, index } = await shipped(e, thanosTestSeries());
    const path = `/sync/${TENANT}/${blockId}/${INDEX_HEADER_FILENAME}`;
    const result = await buildIndexHeader(e.bucket, TENANT, blockId, e.fs, path);
    const header = await e.fs.readFile(path);

    // Expected bytes from the format rules, straight from the raw index.
    const toc = decodeToc(index.subarray(index.length - 52), index.length - 52);
    const symbols = index.subarray(toc.symbols, toc.series);
    const headerToc = concat(be64(14), be64(14 + symbols.length));
    const expected = concat(
      be32(0xbaaad792),
      Uint8Array.of(1, 2),
      be64(toc.postingsTable),
      symbols,
      index.subarray(toc.postingsTable),
      headerToc,
      be32(crc32c(headerToc)),
    );
    expect(Buffer.from(header).equals(Buffer.from(expected))).toBe(true);

    // The values Thanos's test asserts for this block: BinaryTOC{Symbols: 14,
    // PostingsOffsetTable: 70} and indexLastPostingEnd (the index's postings table) 710.
    const view = new DataView(header.buffer, header.byteOffset);
    expect(view.getBigUint64(6)).toBe(710n);
    expect(view.getBigUint64(header.length - 20)).toBe(14n);
    expect(view.getBigUint64(header.length - 12)).toBe(70n);
    expect(result).toEqual({
      headerBytes: header.length,
      indexBytes: index.length,
      bucketRequests: 4,
      bucketBytes: 52 + toc.series + (index.length - toc.postingsTable),
    });

    // Its postings offsets match Thanos's too: "" at 376 (ends 444 = 440 + CRC), a=1 at 444,
    // longer-string=1 at 644.
    const opened = await openHeaderIndex({
      fs: e.fs,
      path,
      remote: () => Promise.reject(new Error('unused')),
    });
    const r = opened.reader;
    expect(await r.postingsRanges('', [''])).toEqual([{ value: '', offset: 376, end: 444 }]);
    expect((await r.postingsRanges('a', ['1']))[0]?.offset).toBe(444);
    expect((await r.postingsRanges('longer-string', ['1']))[0]?.offset).toBe(644);
    await opened.close();
  });

  it('builds from range reads only, never a whole-object GET of the index', async () => {
    const e = env();
    const input = Array.from({ length: 300 }, (_, i) =>
      series({ __name__: 'm', instance: `i${i}` }, 200, i + 1),
    );
    const { blockId, index } = await shipped(e, input);
    const path = `/sync/h`;
    await buildIndexHeader(e.bucket, TENANT, blockId, e.fs, path);
    expect(e.bucket.callsTo('', 'get')).toEqual([]);
    expect(e.bucket.callsTo('/index', 'getRange')).toHaveLength(3);
    // Symbols and the postings table only: the series and postings lists stay in the bucket.
    expect(e.bucket.bytesRead()).toBeLessThan(index.length / 3);
    expect(await e.fs.exists(`${path}.tmp`)).toBe(false);
  });

  it('survives a power loss right after it is built (fsynced, renamed, directory synced)', async () => {
    const e = env();
    const { blockId } = await shipped(e, thanosTestSeries());
    const path = `/sync/${TENANT}/${blockId}/index-header`;
    e.fs.powerLossAfter([
      (op) => op.kind === 'rename' && op.to === path,
      (op) => op.kind === 'syncDir',
    ]);
    await buildIndexHeader(e.bucket, TENANT, blockId, e.fs, path);
    const restarted = new DiskFileSystem(e.fs.disk);
    const opened = await openHeaderIndex({
      fs: restarted,
      path,
      remote: () => Promise.reject(new Error('unused')),
    });
    expect(opened.reader.labelNames()).toEqual(['a', 'longer-string']);
    await opened.close();
  });
});

describe('index-header reader', () => {
  const labelValue = fc.constantFrom('a', 'b', 'c', 'x1', 'x2', 'ü', 'a b', '0', '10', '9');
  const seriesSet = fc.uniqueArray(
    fc.record({
      job: labelValue,
      instance: fc.option(labelValue, { nil: undefined }),
      zone: fc.option(labelValue, { nil: undefined }),
      n: fc.integer({ min: 1, max: 150 }),
    }),
    { minLength: 1, maxLength: 60, selector: (r) => `${r.job}|${r.instance}|${r.zone}` },
  );

  it('answers exactly like IndexReader over the whole index (property)', async () => {
    await fc.assert(
      fc.asyncProperty(seriesSet, fc.integer({ min: 1, max: 40 }), async (set, factor) => {
        const e = env();
        const input = set.map((s, i) => {
          const labels: Record<string, string> = { __name__: 'up', job: s.job };
          if (s.instance !== undefined) labels['instance'] = s.instance;
          if (s.zone !== undefined) labels['zone'] = s.zone;
          return series(labels, s.n, i + 7);
        });
        const { blockId, index } = await shipped(e, input);
        const path = `/sync/${blockId}/index-header`;
        await buildIndexHeader(e.bucket, TENANT, blockId, e.fs, path);
        const object = blockIndexPath(TENANT, blockId);
        const opened = await openHeaderIndex({
          fs: e.fs,
          path,
          samplingFactor: factor,
          remote: (offset, length) => e.bucket.getRange(object, offset, length),
        });
        const want = await IndexReader.open(bytesSource(index), { samplingFactor: factor });
        const got = opened.reader;
        expect(got.toc).toEqual(want.toc);
        expect(got.symbols()).toEqual(want.symbols());
        expect(got.labelNames()).toEqual(want.labelNames());
        for (const name of ['', ...want.labelNames(), 'absent']) {
          const values = await want.labelValues(name);
          expect(await got.labelValues(name)).toEqual(values);
          const probe = [...values, 'absent', '00'];
          expect(await got.postingsRanges(name, probe)).toEqual(
            await want.postingsRanges(name, probe),
          );
          for (const v of values)
            expect(await got.postings(name, v)).toEqual(await want.postings(name, v));
          expect(await got.postings(name, ...values)).toEqual(await want.postings(name, ...values));
        }
        const all = await want.allPostings();
        expect(await got.allPostings()).toEqual(all);
        for (const ref of all) expect(await got.series(ref)).toEqual(await want.series(ref));
        await opened.close();
      }),
      { numRuns: 25 },
    );
  });

  it('rejects a damaged local file with IndexHeaderError, and ensureIndexHeader rebuilds it', async () => {
    const e = env();
    const { blockId } = await shipped(e, thanosTestSeries());
    const path = `/sync/h`;
    const remote = () => Promise.reject(new Error('unused'));
    await expect(openHeaderIndex({ fs: e.fs, path, remote })).rejects.toThrow(
      /index-header \/sync\/h: file does not exist/,
    );
    expect(
      (await ensureIndexHeader({ bucket: e.bucket, fs: e.fs, tenant: TENANT, blockId, path }))
        ?.reason,
    ).toMatch(/does not exist/);
    const good = await e.fs.readFile(path);
    expect(
      await ensureIndexHeader({ bucket: e.bucket, fs: e.fs, tenant: TENANT, blockId, path }),
    ).toBeUndefined();

    const damage = async (mutate: (b: Uint8Array) => Uint8Array, message: RegExp) => {
      await e.fs.writeFile(path, mutate(good.slice()));
      const err: unknown = await openHeaderIndex({ fs: e.fs, path, remote }).catch(
        (x: unknown) => x,
      );
      expect(err).toBeInstanceOf(IndexHeaderError);
      expect((err as Error).message).toMatch(message);
      await ensureIndexHeader({ bucket: e.bucket, fs: e.fs, tenant: TENANT, blockId, path });
      expect(await e.fs.readFile(path)).toEqual(good);
    };
    await damage((b) => ((b[0] = 0), b), /invalid magic number/);
    await damage((b) => ((b[4] = 2), b), /unknown index-header format version 2/);
    await damage((b) => ((b[5] = 1), b), /unsupported index format version 1/);
    await damage((b) => flip(b, b.length - 1, 1), /TOC checksum mismatch/);
    await damage((b) => b.subarray(0, b.length - 30), /TOC|too small/);
    await damage((b) => b.subarray(0, 20), /too small/);
    // A flipped bit inside the copied symbol table fails its CRC when the reader opens.
    await damage((b) => flip(b, 20, 4), /symbol table.*checksum mismatch/);
  });
});

describe('building from a damaged or missing index', () => {
  async function buildError(e: Env, blockId: string): Promise<BucketBlockError> {
    const err: unknown = await buildIndexHeader(e.bucket, TENANT, blockId, e.fs, '/h').catch(
      (x: unknown) => x,
    );
    expect(err).toBeInstanceOf(BucketBlockError);
    return err as BucketBlockError;
  }

  it('names tenant, block and object, and writes nothing', async () => {
    const e = env();
    const { blockId, index } = await shipped(e, thanosTestSeries());
    const object = blockIndexPath(TENANT, blockId);
    const upload = (bytes: Uint8Array) => e.bucket.upload(object, bytes);
    const prefix = `tenant "${TENANT}" block ${blockId}: `;

    const cases: Array<[Uint8Array, RegExp]> = [
      [concat(Uint8Array.of(0, 0, 0, 0), index.subarray(4)), /invalid index magic number 0x0/],
      [
        concat(index.subarray(0, 4), Uint8Array.of(1), index.subarray(5)),
        /unsupported index format version 1/,
      ],
      [index.subarray(0, index.length - 10), /TOC checksum mismatch/],
      [index.subarray(0, 40), /index too small|TOC/],
      [
        (() => {
          const b = index.slice();
          b[10] = (b[10] as number) ^ 1;
          return b;
        })(),
        /symbol table.*checksum mismatch/,
      ],
    ];
    for (const [bytes, message] of cases) {
      await upload(bytes);
      const err = await buildError(e, blockId);
      expect(err.kind).toBe('corrupted');
      expect(err.object).toBe(object);
      expect(err.message.startsWith(`${prefix}corrupted object ${object}: `)).toBe(true);
      expect(err.message).toMatch(message);
      expect(await e.fs.exists('/h')).toBe(false);
    }

    await e.bucket.delete(object);
    const missing = await buildError(e, blockId);
    expect(missing.kind).toBe('missing');
    expect(missing.message).toBe(`${prefix}missing object ${object}: object not found: ${object}`);
  });
});
