import { describe, expect, it } from 'vitest';
import { DiskFileSystem } from '../../sim/testing/index.js';
import { CapturingLogger } from '../runtime/testing/index.js';
import { parseBlockMeta } from '../tsdb/index.js';
import { Shipper } from './shipper.js';
import {
  HOUR,
  START,
  localBlock,
  metricValue,
  newMetricsRegistry,
  recordingBucket,
  rewriteMeta,
  type RecordingBucket,
} from './shipper_harness.testing.js';
import { encodeShipperMeta, readShipperMeta } from './shipper_meta.js';
import { shipperMetrics } from './shipper_metrics.js';

const TENANT = 'team-a';
const DIR = `/data/tsdb/${TENANT}`;
const LABELS = { __org_id__: TENANT, __ingester_id__: 'ingester-1' };

interface Setup {
  fs: DiskFileSystem;
  bucket: RecordingBucket;
  logger: CapturingLogger;
  registry: ReturnType<typeof newMetricsRegistry>;
  shipper: Shipper;
}

function setup(
  over: { fs?: DiskFileSystem; bucket?: RecordingBucket; uploadCompacted?: boolean } = {},
): Setup {
  const fs = over.fs ?? new DiskFileSystem();
  const bucket = over.bucket ?? recordingBucket();
  const logger = new CapturingLogger();
  const registry = newMetricsRegistry();
  const shipper = new Shipper(
    { tenant: TENANT, dir: DIR, labels: LABELS, uploadCompacted: over.uploadCompacted ?? true },
    { fs, bucket, logger, metrics: shipperMetrics(registry) },
  );
  return { fs, bucket, logger, registry, shipper };
}

const metric = (s: Setup, name: string) =>
  metricValue(s.registry, `cortex_ingester_shipper_${name}`);

describe('Shipper.sync', () => {
  it('ships blocks oldest first, each one meta.json last, and records them', async () => {
    const s = setup();
    // Written newest first: the order must come from the blocks' min times.
    const newer = await localBlock(s.fs, DIR, TENANT, START + 2 * HOUR);
    const older = await localBlock(s.fs, DIR, TENANT, START);
    const result = await s.shipper.sync();
    expect(result).toEqual({ uploaded: 2, failed: 0, corrupted: 0 });
    const objects = (b: string) => [
      `${TENANT}/${b}/chunks/000001`,
      `${TENANT}/${b}/index`,
      `${TENANT}/${b}/meta.json`,
    ];
    expect(s.bucket.uploads()).toEqual([...objects(older.ulid), ...objects(newer.ulid)]);
    // Asked the bucket first whether each block was there.
    expect(s.bucket.ops.filter((o) => o.startsWith('exists'))).toEqual([
      `exists ${TENANT}/${older.ulid}/meta.json`,
      `exists ${TENANT}/${newer.ulid}/meta.json`,
    ]);
    const shipped = parseBlockMeta(
      new TextDecoder().decode(await s.bucket.inner.get(`${TENANT}/${older.ulid}/meta.json`)),
    );
    expect(shipped.thanos?.labels).toEqual(LABELS);
    expect(shipped.thanos?.source).toBe('receive');
    expect(s.shipper.isShipped(older.ulid) && s.shipper.isShipped(newer.ulid)).toBe(true);
    expect(await readShipperMeta(s.fs, DIR)).toEqual({
      version: 1,
      uploaded: [older.ulid, newer.ulid],
    });
    expect(await metric(s, 'uploads_total')).toBe(2);
    expect(await metric(s, 'dir_syncs_total')).toBe(1);
    expect(await metric(s, 'dir_sync_failures_total')).toBe(0);
  });

  it('records a block whose meta.json is already in the bucket without uploading it again', async () => {
    const s = setup();
    const block = await localBlock(s.fs, DIR, TENANT, START);
    await s.bucket.inner.upload(`${TENANT}/${block.ulid}/meta.json`, new Uint8Array([1]));
    expect(await s.shipper.sync()).toEqual({ uploaded: 0, failed: 0, corrupted: 0 });
    expect(s.bucket.uploads()).toEqual([]);
    expect(s.shipper.isShipped(block.ulid)).toBe(true);
    expect((await readShipperMeta(s.fs, DIR))?.uploaded).toEqual([block.ulid]);
  });

  it('writes thanos.shipper.json as Thanos does and does not re-upload after a restart', async () => {
    const fs = new DiskFileSystem();
    const bucket = recordingBucket();
    const first = setup({ fs, bucket });
    const a = await localBlock(fs, DIR, TENANT, START);
    const b = await localBlock(fs, DIR, TENANT, START + 2 * HOUR);
    await first.shipper.sync();
    const text = new TextDecoder().decode(await fs.readFile(`${DIR}/thanos.shipper.json`));
    expect(text).toBe(
      `{\n\t"version": 1,\n\t"uploaded": [\n\t\t"${a.ulid}",\n\t\t"${b.ulid}"\n\t]\n}\n`,
    );
    expect(encodeShipperMeta([])).toBe('{\n\t"version": 1,\n\t"uploaded": null\n}\n');

    // A new process on the same disk: the record is read back, nothing goes up again.
    const second = setup({ fs, bucket });
    expect(second.shipper.isShipped(a.ulid)).toBe(false);
    await second.shipper.load();
    expect([...second.shipper.shippedBlocks()]).toEqual([a.ulid, b.ulid]);
    const opsBefore = bucket.ops.length;
    expect(await second.shipper.sync()).toEqual({ uploaded: 0, failed: 0, corrupted: 0 });
    // Recorded blocks are not even looked up in the bucket.
    expect(bucket.ops.slice(opsBefore)).toEqual([]);
  });

  it('counts a failed upload, ships the later blocks, and retries it next sync', async () => {
    const s = setup();
    const a = await localBlock(s.fs, DIR, TENANT, START);
    const b = await localBlock(s.fs, DIR, TENANT, START + 2 * HOUR);
    s.bucket.failOn = (op, name) => op === 'upload' && name === `${TENANT}/${a.ulid}/index`;
    expect(await s.shipper.sync()).toEqual({ uploaded: 1, failed: 1, corrupted: 0 });
    expect(s.shipper.isShipped(a.ulid)).toBe(false);
    expect(s.shipper.isShipped(b.ulid)).toBe(true);
    // The partial upload of the failed block was removed: no meta.json, no chunks.
    expect(await s.bucket.inner.list(`${TENANT}/${a.ulid}/`, { recursive: true })).toEqual([]);
    expect(s.logger.find('shipping failed', 'error')).toHaveLength(1);
    expect(await metric(s, 'upload_failures_total')).toBe(1);
    expect(await metric(s, 'uploads_total')).toBe(1);
    expect(await metric(s, 'dir_sync_failures_total')).toBe(1);

    s.bucket.failOn = () => false;
    expect(await s.shipper.sync()).toEqual({ uploaded: 1, failed: 0, corrupted: 0 });
    expect(s.shipper.isShipped(a.ulid)).toBe(true);
    expect((await readShipperMeta(s.fs, DIR))?.uploaded).toEqual([a.ulid, b.ulid]);
    expect(await metric(s, 'uploads_total')).toBe(2);
    expect(await metric(s, 'upload_failures_total')).toBe(1);
    expect(await metric(s, 'dir_syncs_total')).toBe(2);
    expect(await metric(s, 'dir_sync_failures_total')).toBe(1);
  });

  it('skips empty blocks, and compacted ones only when uploading them is off', async () => {
    for (const uploadCompacted of [true, false]) {
      const s = setup({ uploadCompacted });
      const empty = await localBlock(s.fs, DIR, TENANT, START);
      await rewriteMeta(s.fs, DIR, empty, (m) => {
        m.stats.numSamples = 0;
      });
      const compacted = await localBlock(s.fs, DIR, TENANT, START + 2 * HOUR);
      await rewriteMeta(s.fs, DIR, compacted, (m) => {
        m.compaction.level = 2;
      });
      const result = await s.shipper.sync();
      expect(result.uploaded).toBe(uploadCompacted ? 1 : 0);
      expect(s.shipper.isShipped(empty.ulid)).toBe(false);
      expect(s.shipper.isShipped(compacted.ulid)).toBe(uploadCompacted);
      expect(s.bucket.uploads().some((n) => n.includes(empty.ulid))).toBe(false);
    }
  });

  it('forgets recorded blocks that are gone from the disk', async () => {
    const s = setup();
    const a = await localBlock(s.fs, DIR, TENANT, START);
    const b = await localBlock(s.fs, DIR, TENANT, START + 2 * HOUR);
    await s.shipper.sync();
    await s.fs.remove(`${DIR}/${a.ulid}`, { recursive: true });
    await s.shipper.sync();
    expect((await readShipperMeta(s.fs, DIR))?.uploaded).toEqual([b.ulid]);
    expect(s.shipper.isShipped(a.ulid)).toBe(false);
  });

  it('treats a corrupted thanos.shipper.json as empty (logged): bucket lookups, no re-upload', async () => {
    const fs = new DiskFileSystem();
    const bucket = recordingBucket();
    const first = setup({ fs, bucket });
    const a = await localBlock(fs, DIR, TENANT, START);
    await first.shipper.sync();
    for (const bad of ['{"version":1,"uploaded":["01', '{"version":2,"uploaded":[]}', '[]']) {
      await fs.writeFile(`${DIR}/thanos.shipper.json`, bad);
      const s = setup({ fs, bucket });
      await s.shipper.load();
      expect(s.shipper.isShipped(a.ulid)).toBe(false);
      expect(s.logger.find('reading the shipper meta file failed', 'warn')).toHaveLength(1);
      const uploadsBefore = bucket.uploads().length;
      expect(await s.shipper.sync()).toEqual({ uploaded: 0, failed: 0, corrupted: 0 });
      // The block is found in the bucket, recorded again, and its local copy kept meanwhile.
      expect(bucket.uploads().length).toBe(uploadsBefore);
      expect(s.shipper.isShipped(a.ulid)).toBe(true);
      expect(await fs.exists(`${DIR}/${a.ulid}/meta.json`)).toBe(true);
      expect((await readShipperMeta(fs, DIR))?.uploaded).toEqual([a.ulid]);
    }
  });

  it('counts a block directory with an unreadable meta.json as corrupted and ships the rest', async () => {
    const s = setup();
    const bad = await localBlock(s.fs, DIR, TENANT, START);
    const good = await localBlock(s.fs, DIR, TENANT, START + 2 * HOUR);
    await s.fs.writeFile(`${DIR}/${bad.ulid}/meta.json`, '{"ulid":');
    expect(await s.shipper.sync()).toEqual({ uploaded: 1, failed: 0, corrupted: 1 });
    expect(s.shipper.isShipped(good.ulid)).toBe(true);
    expect(await metric(s, 'corrupted_blocks_total')).toBe(1);
    expect(await metric(s, 'dir_sync_failures_total')).toBe(1);
    expect(await metric(s, 'upload_failures_total')).toBe(0);
    expect(s.logger.find('meta.json unreadable', 'error')).toHaveLength(1);
  });

  it('does not record blocks as shipped when the record cannot be written', async () => {
    const s = setup();
    const a = await localBlock(s.fs, DIR, TENANT, START);
    const failing = new Proxy(s.fs, {
      get(target, prop, receiver) {
        const value: unknown = Reflect.get(target, prop, receiver);
        if (prop !== 'open' || typeof value !== 'function') return value;
        return (path: string, mode: string) =>
          path.endsWith('thanos.shipper.json.tmp')
            ? Promise.reject(new Error('disk full'))
            : (value as (p: string, m: string) => Promise<unknown>).call(target, path, mode);
      },
    });
    const shipper = new Shipper(
      { tenant: TENANT, dir: DIR, labels: LABELS, uploadCompacted: true },
      { fs: failing, bucket: s.bucket, logger: s.logger, metrics: shipperMetrics(s.registry) },
    );
    expect(await shipper.sync()).toEqual({ uploaded: 1, failed: 1, corrupted: 0 });
    // Uploaded, but not durably recorded: retention must not treat it as shipped yet.
    expect(shipper.isShipped(a.ulid)).toBe(false);
    expect(await s.bucket.inner.exists(`${TENANT}/${a.ulid}/meta.json`)).toBe(true);
    // The next sync (disk healthy again) finds it in the bucket and records it.
    await s.shipper.sync();
    expect(s.shipper.isShipped(a.ulid)).toBe(true);
  });
});
