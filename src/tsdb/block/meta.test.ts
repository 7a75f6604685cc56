import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { NodeFileSystem } from '../../runtime/real/index.js';
import {
  BlockMetaError,
  BlockSource,
  parseBlockMeta,
  readBlockMeta,
  serializeBlockMeta,
  TENANT_EXTERNAL_LABEL,
  writeBlockMeta,
  type BlockMeta,
} from './index.js';

// Written by Prometheus 2.42 (promtool tsdb create-blocks-from): tabs, no trailing newline,
// numTombstones omitted because it is zero.
const PROMETHEUS_META = `{
\t"ulid": "01M808GQW738BG443RHSH6XVNZ",
\t"minTime": 1700000000000,
\t"maxTime": 1700000015001,
\t"stats": {
\t\t"numSamples": 3,
\t\t"numSeries": 2,
\t\t"numChunks": 2
\t},
\t"compaction": {
\t\t"level": 1,
\t\t"sources": [
\t\t\t"01M808GQW738BG443RHSH6XVNZ"
\t\t]
\t},
\t"version": 1
}`;

// As a Cortex compactor writes it (Thanos metadata, json.Encoder: trailing newline).
const CORTEX_META = `{
\t"ulid": "01HQ3K2X4YB0J6C5T9VZ8R7N1M",
\t"minTime": 1700000000000,
\t"maxTime": 1700007200000,
\t"stats": {
\t\t"numSamples": 240,
\t\t"numSeries": 2,
\t\t"numChunks": 2,
\t\t"numTombstones": 1
\t},
\t"compaction": {
\t\t"level": 2,
\t\t"sources": [
\t\t\t"01HQ3K2X4YB0J6C5T9VZ8R7N1A",
\t\t\t"01HQ3K2X4YB0J6C5T9VZ8R7N1B"
\t\t],
\t\t"parents": [
\t\t\t{
\t\t\t\t"ulid": "01HQ3K2X4YB0J6C5T9VZ8R7N1A",
\t\t\t\t"minTime": 1700000000000,
\t\t\t\t"maxTime": 1700003600000
\t\t\t}
\t\t]
\t},
\t"version": 1,
\t"thanos": {
\t\t"labels": {
\t\t\t"__org_id__": "team\\u003ca\\u0026b\\u003e"
\t\t},
\t\t"downsample": {
\t\t\t"resolution": 0
\t\t},
\t\t"source": "compactor",
\t\t"segment_files": [
\t\t\t"000001"
\t\t],
\t\t"files": [
\t\t\t{
\t\t\t\t"rel_path": "chunks/000001",
\t\t\t\t"size_bytes": 1024
\t\t\t},
\t\t\t{
\t\t\t\t"rel_path": "meta.json"
\t\t\t}
\t\t]
\t}
}
`;

const root = mkdtempSync(join(tmpdir(), 'strata-meta-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const fs = new NodeFileSystem();

describe('meta.json', () => {
  it('parses and re-serialises Prometheus meta.json byte for byte', () => {
    const meta = parseBlockMeta(PROMETHEUS_META);
    expect(meta.stats).toEqual({ numSamples: 3, numSeries: 2, numChunks: 2, numTombstones: 0 });
    expect(meta.compaction).toEqual({ level: 1, sources: ['01M808GQW738BG443RHSH6XVNZ'] });
    expect(meta.thanos).toBeUndefined();
    expect(serializeBlockMeta(meta)).toBe(PROMETHEUS_META);
  });

  it('parses and re-serialises the Thanos section as Cortex writes it', () => {
    const meta = parseBlockMeta(CORTEX_META);
    expect(meta.thanos?.labels).toEqual({ [TENANT_EXTERNAL_LABEL]: 'team<a&b>' });
    expect(meta.thanos?.source).toBe(BlockSource.Compactor);
    expect(meta.compaction.parents).toHaveLength(1);
    expect(serializeBlockMeta(meta)).toBe(CORTEX_META);
    expect(serializeBlockMeta(meta, { style: 'prometheus' })).toBe(CORTEX_META.trimEnd());
  });

  it('writes thanos labels in Go map order (sorted by bytes) and escapes like Go', () => {
    const meta: BlockMeta = {
      ulid: '01HQ3K2X4YB0J6C5T9VZ8R7N1M',
      minTime: 0,
      maxTime: 10,
      stats: { numSamples: 0, numSeries: 0, numChunks: 0, numTombstones: 0 },
      compaction: { level: 1, sources: [], deletable: true },
      version: 1,
      thanos: {
        labels: { zone: 'é\u2028', __org_id__: 'a\b\f\\b"', Z: '' },
        downsample: { resolution: 300000 },
        source: BlockSource.Receive,
      },
    };
    const text = serializeBlockMeta(meta);
    expect(text).toContain('"stats": {},');
    expect(text).toContain('"compaction": {\n\t\t"level": 1,\n\t\t"deletable": true\n\t}');
    expect(text).toContain(
      '"labels": {\n\t\t\t"Z": "",\n\t\t\t"__org_id__": "a\\u0008\\u000c\\\\b\\"",\n\t\t\t"zone": "é\\u2028"\n\t\t}',
    );
    expect(parseBlockMeta(text)).toEqual({
      ...meta,
      compaction: { level: 1, sources: [], deletable: true },
    });
  });

  it('names the bad field in errors', () => {
    const bad = (edit: (o: Record<string, unknown>) => void): string => {
      const o = JSON.parse(PROMETHEUS_META) as Record<string, unknown>;
      edit(o);
      return JSON.stringify(o);
    };
    expect(() => parseBlockMeta('{')).toThrow(BlockMetaError);
    expect(() => parseBlockMeta(bad((o) => (o.ulid = 'nope')))).toThrow(
      /field ulid: must be a ULID .*got "nope"/,
    );
    expect(() => parseBlockMeta(bad((o) => (o.version = 2)))).toThrow(/field version: .*got 2/);
    expect(() => parseBlockMeta(bad((o) => (o.minTime = 1.5)))).toThrow(/field minTime: .*got 1.5/);
    expect(() => parseBlockMeta(bad((o) => (o.maxTime = 5)))).toThrow(
      /field maxTime: must not be below minTime 1700000000000, got 5/,
    );
    expect(() =>
      parseBlockMeta(bad((o) => ((o.compaction as { sources: unknown[] }).sources = ['x']))),
    ).toThrow(/field compaction.sources\[0\]: must be a ULID/);
    expect(() =>
      parseBlockMeta(bad((o) => ((o.stats as Record<string, unknown>).numSeries = -1))),
    ).toThrow(/field stats.numSeries: must be a non-negative integer, got -1/);
    expect(() => parseBlockMeta(bad((o) => (o.thanos = { labels: { a: 1 } })))).toThrow(
      /field thanos.labels.a: must be a string, got 1/,
    );
  });

  it('writes atomically through the FileSystem and reads back', async () => {
    const dir = join(root, 'block');
    await fs.mkdir(dir, { recursive: true });
    const meta = parseBlockMeta(CORTEX_META);
    const n = await writeBlockMeta(dir, meta, { fs });
    expect(n).toBe(Buffer.byteLength(CORTEX_META));
    expect(readFileSync(join(dir, 'meta.json'), 'utf8')).toBe(CORTEX_META);
    expect(await fs.exists(join(dir, 'meta.json.tmp'))).toBe(false);
    expect(await readBlockMeta(dir, { fs })).toEqual(meta);
    await fs.writeFile(join(dir, 'meta.json'), '{"version": 1}');
    await expect(readBlockMeta(dir, { fs })).rejects.toThrow(`${dir}/meta.json: field minTime`);
  });
});
