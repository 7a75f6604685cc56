// The long-term benchmark's markdown tables (see long_term_bench.ts for what is measured).
import type { BucketCounts } from './long_term_data.js';
import { LT_BYTES_TARGET_FRACTION, median, type LongTermResult } from './long_term_bench.js';
import { SAMPLES_PER_2H_BLOCK } from './series_shapes.js';

function fixed(n: number, digits: number): string {
  return n.toFixed(digits);
}

function mib(bytes: number): string {
  return fixed(bytes / 2 ** 20, 1);
}

function range(xs: readonly number[], digits: number): string {
  if (xs.length === 0) return 'n/a';
  return `${fixed(median(xs), digits)} (${fixed(Math.min(...xs), digits)}–${fixed(Math.max(...xs), digits)})`;
}

function mean(xs: readonly number[]): number {
  return xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;
}

export function longTermTable(r: LongTermResult): string {
  const hours = (r.end + 1 - r.start) / (60 * 60 * 1000);
  const measured = r.backends.filter((b) => b.skipped === undefined);
  const lines = [
    `## Long-term read path: one series over ${hours}h from ${r.blocks} blocks of ${r.series} series (target: < ${LT_BYTES_TARGET_FRACTION * 100}% of the block bytes read)`,
    '',
    `Query \`${r.query}\` over [${r.start}, ${r.end}] (${r.blocks} × 2h blocks, ${r.series} series × ${SAMPLES_PER_2H_BLOCK} samples per block, four shapes); blocks written in ${fixed(r.writeSeconds, 1)} s.`,
    '',
    '| bucket | block bytes (MiB) | bytes read per query | of block bytes | from index | from chunks | range requests per query | other requests | target < 1% |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const b of r.backends) {
    if (b.skipped !== undefined) {
      lines.push(`| ${b.bucket} | skipped: ${b.skipped} | | | | | | | |`);
      continue;
    }
    const row = (name: string, q: BucketCounts): string => {
      const read = q.rangeBytes + q.getBytes;
      const frac = read / b.blockBytes;
      return `| ${name} | ${mib(b.blockBytes)} | ${read} | ${fixed(frac * 100, 3)}% | ${q.indexRangeBytes} | ${q.chunkRangeBytes} | ${q.rangeRequests} (${fixed(q.rangeRequests / r.blocks, 1)}/block) | ${q.gets + q.otherRequests} | ${frac < LT_BYTES_TARGET_FRACTION ? 'pass' : 'FAIL'} |`;
    };
    lines.push(row(`${b.bucket} (no index_stats, as Cortex ships)`, b.query));
    lines.push(row(`${b.bucket} (index_stats, as Strata ships)`, b.withIndexStats));
  }
  lines.push(
    '',
    '| bucket | index-header build ms per block, median (min–max) | open ms per block | index-header bytes per block | index bytes per block | header / index | bucket bytes read per build | bucket requests per build |',
    '|---|---|---|---|---|---|---|---|',
  );
  for (const b of measured) {
    lines.push(
      `| ${b.bucket} | ${range(b.headerBuildMs, 1)} | ${range(b.headerOpenMs, 1)} | ${fixed(mean(b.headerBytes), 0)} | ${fixed(b.indexBytes / r.blocks, 0)} | ${fixed((mean(b.headerBytes) / (b.indexBytes / r.blocks)) * 100, 1)}% | ${fixed(mean(b.headerBuildBucketBytes), 0)} | ${fixed(mean(b.headerBuildRequests), 1)} |`,
    );
  }
  lines.push(
    '',
    '| bucket | blocks loaded (after the first) | heap + ArrayBuffer delta (MiB) | per loaded block (KiB) | load ms per block (build + open) |',
    '|---|---|---|---|---|',
  );
  for (const b of measured) {
    const m = b.memory;
    lines.push(
      m === undefined
        ? `| ${b.bucket} | n/a (needs node --expose-gc) | | | |`
        : `| ${b.bucket} | ${m.blocks} | ${mib(m.deltaBytes)} | ${fixed(m.deltaBytes / m.blocks / 1024, 1)} | ${fixed(m.loadMs / m.blocks, 1)} |`,
    );
  }
  lines.push(
    '',
    '| path | data | series × samples | first query ms | median ms | min ms | max ms | timed runs |',
    '|---|---|---|---|---|---|---|---|',
  );
  for (const row of [...measured.flatMap((b) => b.latency), ...r.ingester]) {
    lines.push(
      `| ${row.path} | ${row.bucket} | ${row.checksum.series} × ${row.checksum.samples} | ${fixed(row.firstMs, 2)} | ${fixed(row.medianMs, 2)} | ${fixed(row.minMs, 2)} | ${fixed(row.maxMs, 2)} | ${row.runs} |`,
    );
  }
  lines.push('');
  if (r.mismatches.length > 0) {
    lines.push(`**Answers differ** from the first path's: ${r.mismatches.join('; ')}`, '');
  }
  return lines.join('\n') + '\n';
}
