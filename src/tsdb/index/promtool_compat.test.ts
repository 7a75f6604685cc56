// Compatibility with indexes Prometheus itself writes: Debian's promtool 2.42 builds a block
// from a generated OpenMetrics file; our reader must return exactly the input's series, label
// names, values and postings, and our writer, fed the same symbols, series and chunk refs,
// must reproduce promtool's index byte for byte.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Labels, Matcher, compareGoStrings } from '../../model/index.js';
import { NodeFileSystem } from '../../runtime/real/index.js';
import { IndexReader, IndexWriter, bytesSource, postingsForMatchers } from './index.js';

const PROMTOOL = '/usr/bin/promtool';

interface InputSeries {
  labels: Labels;
  sampleCount: number;
}

/** A deterministic series set: several metrics and label names, non-ASCII values. */
function generateSeries(): InputSeries[] {
  const out: InputSeries[] = [];
  const paths = ['/a', '/é', '/\u{10000}', '/\ue000', '/z'];
  let n = 0;
  for (const job of ['api', 'web', 'db']) {
    for (let inst = 0; inst < 3; inst++) {
      for (const code of ['200', '500']) {
        const path = paths[n % paths.length] as string;
        out.push({
          labels: Labels.fromObject({
            __name__: 'http_requests_total',
            job,
            instance: `host-${inst}:9090`,
            code,
            path,
          }),
          sampleCount: 1 + ((n * 37) % 300),
        });
        n++;
      }
      out.push({
        labels: Labels.fromObject({ __name__: 'up', job, instance: `host-${inst}:9090` }),
        sampleCount: 250,
      });
    }
    out.push({
      labels: Labels.fromObject({ __name__: 'job_info', job, team: `t-${job}` }),
      sampleCount: 3,
    });
  }
  return out;
}

function escapeValue(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function toOpenMetrics(series: readonly InputSeries[]): string {
  const lines: string[] = [];
  const byMetric = new Map<string, InputSeries[]>();
  for (const s of series) {
    const name = s.labels.get('__name__');
    byMetric.set(name, [...(byMetric.get(name) ?? []), s]);
  }
  for (const [name, list] of byMetric) {
    lines.push(`# TYPE ${name} gauge`);
    for (const s of list) {
      const pairs: string[] = [];
      s.labels.forEach((k, v) => {
        if (k !== '__name__') pairs.push(`${k}="${escapeValue(v)}"`);
      });
      for (let i = 0; i < s.sampleCount; i++) {
        // 15s interval from t=1000s; everything stays inside one 2h block.
        lines.push(`${name}{${pairs.join(',')}} ${i % 7} ${1000 + 15 * i}`);
      }
    }
  }
  lines.push('# EOF');
  return `${lines.join('\n')}\n`;
}

describe('index compatibility with promtool 2.42', () => {
  const input = generateSeries();
  let dir: string;
  let indexBytes: Uint8Array;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'strata-index-compat-'));
    writeFileSync(join(dir, 'input.om'), toOpenMetrics(input));
    execFileSync(
      PROMTOOL,
      ['tsdb', 'create-blocks-from', 'openmetrics', join(dir, 'input.om'), join(dir, 'out')],
      {
        stdio: 'pipe',
      },
    );
    const blocks = readdirSync(join(dir, 'out'));
    expect(blocks).toHaveLength(1);
    indexBytes = new Uint8Array(readFileSync(join(dir, 'out', blocks[0] as string, 'index')));
  });

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads back exactly the input series, label names, values and postings', async () => {
    const reader = await IndexReader.open(bytesSource(indexBytes));
    const expected = [...input].sort((a, b) => Labels.compare(a.labels, b.labels));

    const all = await reader.allPostings();
    expect(all.length).toBe(expected.length);
    const got: Labels[] = [];
    for (const ref of all) {
      const s = await reader.series(ref);
      got.push(s.labels);
      // The chunks cover exactly the samples' time range, in order and without overlap.
      const count = expected[got.length - 1]?.sampleCount ?? 0;
      expect(s.chunks.length).toBeGreaterThan(0);
      for (let i = 1; i < s.chunks.length; i++) {
        expect(s.chunks[i]?.minTime).toBe((s.chunks[i - 1]?.maxTime ?? 0) + 15_000);
        expect(s.chunks[i]?.ref).toBeGreaterThan(s.chunks[i - 1]?.ref ?? 0);
      }
      expect(s.chunks[0]?.minTime).toBe(1_000_000);
      expect(s.chunks.at(-1)?.maxTime).toBe(1_000_000 + 15_000 * (count - 1));
    }
    expect(got.map((l) => l.toString())).toEqual(expected.map((s) => s.labels.toString()));

    const names = new Set<string>();
    const values = new Map<string, Set<string>>();
    for (const s of input) {
      s.labels.forEach((n, v) => {
        names.add(n);
        values.set(n, (values.get(n) ?? new Set()).add(v));
      });
    }
    expect(reader.labelNames()).toEqual([...names].sort(compareGoStrings));
    for (const name of names) {
      const want = [...(values.get(name) as Set<string>)].sort(compareGoStrings);
      expect(await reader.labelValues(name)).toEqual(want);
      for (const value of want) {
        const refs = [...(await reader.postings(name, value))];
        const wantRefs = all.filter((_, i) => (got[i] as Labels).get(name) === value);
        expect(refs).toEqual([...wantRefs]);
      }
    }

    const matched = await postingsForMatchers(reader, [
      Matcher.equal('__name__', 'http_requests_total'),
      Matcher.notEqual('code', '200'),
      Matcher.regex('path', '/.*'),
    ]);
    const wantMatched = all.filter((_, i) => {
      const l = got[i] as Labels;
      return l.get('__name__') === 'http_requests_total' && l.get('code') !== '200';
    });
    expect([...matched]).toEqual([...wantMatched]);
  });

  it('rewrites a byte-identical index from the same symbols, series and chunk refs', async () => {
    const reader = await IndexReader.open(bytesSource(indexBytes));
    const fs = new NodeFileSystem(dir);
    const writer = new IndexWriter({ path: 'ours.index' }, { fs });
    for (const s of reader.symbols()) await writer.addSymbol(s);
    for (const ref of await reader.allPostings()) {
      const s = await reader.series(ref);
      const id = await writer.addSeries(ref, s.labels, s.chunks);
      expect(id).toBe(ref);
    }
    await writer.close();
    const ours = new Uint8Array(readFileSync(join(dir, 'ours.index')));
    expect(ours.length).toBe(indexBytes.length);
    expect(Buffer.from(ours).equals(Buffer.from(indexBytes))).toBe(true);
  });
});
