// The query-frontend benchmark's markdown tables (see frontend_bench.ts for what is measured).
import { STEP_SECONDS, type FrontendResult, type QueryRow } from './frontend_bench.js';
import { DASHBOARD } from './frontend_bench_queries.js';

function ms(n: number): string {
  return n.toFixed(n < 10 ? 1 : 0);
}

function load(l: readonly number[]): string {
  return l.map((x) => x.toFixed(2)).join(' ');
}

function verdict(rows: readonly QueryRow[], mustMatch: boolean): string {
  const differing = rows.filter((q) => q.difference !== undefined);
  if (differing.length === 0) return 'identical';
  const worst = Math.max(...differing.map((q) => q.difference?.maxRelative ?? 0));
  return `${mustMatch ? '**DIFFERENT**' : 'differs'} in ${differing.length} of ${rows.length} (max rel. ${worst.toExponential(1)})`;
}

export function frontendTable(r: FrontendResult): string {
  const lines = [
    `## Query-frontend: a dashboard of ${DASHBOARD.length} range queries over ${r.hours}h of ${r.series} series (store-gateway data)`,
    '',
    `${r.blocks} × 2h blocks of ${r.series} series (four shapes, 15s scrapes) written in ${r.writeSeconds.toFixed(1)} s; every query over [${r.start / 1000}, ${r.end / 1000}] at step ${STEP_SECONDS}s, panels run one after another. Machine: ${r.machine}; load average ${load(r.loadBefore)} before, ${load(r.loadAfter)} after; ${r.date}.`,
    '',
    '| scenario | dashboard total ms | per-query p50 ms | per-query max ms | answers vs the querier |',
    '|---|---|---|---|---|',
  ];
  for (const s of r.scenarios) {
    lines.push(
      `| ${s.scenario} | ${ms(s.totalMs)} | ${ms(s.p50Ms)} | ${ms(s.maxMs)} | ${s.scenario.startsWith('querier') ? 'reference' : verdict(s.queries, s.mustMatch)} |`,
    );
  }
  if (r.prometheusSkipped !== undefined) {
    lines.push(`| Prometheus | skipped: ${r.prometheusSkipped} | | | |`);
  }
  lines.push(
    '',
    `| panel | query | series × points | ${r.scenarios.map((s) => `${s.scenario} ms`).join(' | ')} |`,
    `|---|---|---|${r.scenarios.map(() => '---|').join('')}`,
  );
  DASHBOARD.forEach((q, i) => {
    const ref = r.scenarios[0]?.queries[i];
    const cells = r.scenarios.map((s) => {
      const row = s.queries[i];
      if (row === undefined) return '';
      const d = row.difference;
      return d === undefined
        ? ms(row.ms)
        : `${ms(row.ms)} (${d.points} points differ at ${d.firstT}–${d.lastT}, max rel. ${d.maxRelative.toExponential(1)})`;
    });
    lines.push(
      `| ${q.name} | \`${q.expr.replaceAll('|', '\\|')}\` | ${ref?.series ?? 0} × ${ref?.points ?? 0} | ${cells.join(' | ')} |`,
    );
  });
  lines.push('', '');
  return lines.join('\n');
}
