// The compaction benchmark's markdown tables (see compaction_bench.ts for what is measured).
import type { CompactionBenchResult } from './compaction_bench.js';

function fixed(n: number, digits: number): string {
  return n.toFixed(digits);
}

function mib(bytes: number): string {
  return fixed(bytes / 2 ** 20, 1);
}

function millions(n: number): string {
  return `${fixed(n / 1e6, 2)}M`;
}

export function compactionFailed(r: CompactionBenchResult): boolean {
  return r.checks.some((c) => !c.ok);
}

export function compactionTable(r: CompactionBenchResult): string {
  const m = r.measured;
  const cpuMs = m.cpuUserMs + m.cpuSystemMs;
  const input = r.replicas.reduce((n, b) => n + b.bytes, 0);
  const out = r.output;
  const perReplica = input / r.replicas.length;
  const missed = r.replicas.map((b) => b.missedSamples).join(' / ');
  const lines = [
    `## Compaction: ${r.replicas.length} replicas of a 2h block of ${r.series} series × ${r.samplesPerSeries} samples into one block`,
    '',
    `One CompactionLoop run (sync, plan, download, verify, streaming merge, verify, upload, deletion marks) over a filesystem bucket, measured in a ${m.measuredIn}; ${r.cores} cores; input generated and shipped in ${fixed(r.generateSeconds, 1)} s (not timed). Samples missing per replica (missed pushes): ${missed}.`,
    '',
    '| measure | value |',
    '|---|---|',
    `| input | ${r.replicas.length} blocks, ${r.inputSamples} samples, ${mib(input)} MiB (${fixed(input / r.inputSamples, 3)} B/sample) |`,
    `| output | ${out === undefined ? 'none' : `${out.numSeries} series, ${out.numSamples} samples, ${out.numChunks} chunks, ${mib(out.bytes)} MiB (${fixed(out.bytes / out.numSamples, 3)} B/sample)`} |`,
    `| output bytes / (input bytes / ${r.replicas.length}) | ${out === undefined ? 'n/a' : fixed(out.bytes / perReplica, 4)} |`,
    `| wall time | ${fixed(m.wallMs / 1000, 2)} s |`,
    `| CPU time (user + system) | ${fixed(cpuMs / 1000, 2)} s (${fixed(m.cpuUserMs / 1000, 2)} + ${fixed(m.cpuSystemMs / 1000, 2)}; ${fixed(cpuMs / m.wallMs, 2)} cores busy on average) |`,
    `| input samples / CPU second (per core) | ${millions(r.inputSamples / (cpuMs / 1000))} |`,
    `| output samples / wall second | ${out === undefined ? 'n/a' : millions(out.numSamples / (m.wallMs / 1000))} |`,
    `| peak RSS | ${mib(m.peakRssBytes)} MiB (${mib(m.baselineRssBytes)} MiB before the run) |`,
    `| peak V8 heap + ArrayBuffers | ${mib(m.peakHeapBytes)} MiB (${mib(m.baselineHeapBytes)} MiB before the run; ${m.samples} samples) |`,
    `| peak RSS / output block | ${out === undefined ? 'n/a' : fixed(m.peakRssBytes / out.bytes, 2)} |`,
    '',
    '| phase | wall s | peak RSS (MiB) | peak heap + ArrayBuffers (MiB) |',
    '|---|---|---|---|',
  ];
  for (const p of m.phases) {
    lines.push(
      `| ${p.phase} | ${fixed(p.wallMs / 1000, 2)} | ${mib(p.peakRssBytes)} | ${mib(p.peakHeapBytes)} |`,
    );
  }
  lines.push('', '| check | result |', '|---|---|');
  for (const c of r.checks) lines.push(`| ${c.name} | ${c.ok ? 'ok' : 'FAILED'}: ${c.detail} |`);
  return lines.join('\n') + '\n\n';
}
