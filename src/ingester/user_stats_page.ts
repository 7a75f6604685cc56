// `/ingester/all_user_stats`: this ingester's per-tenant stats as Cortex's "Ingester Stats"
// page, or as Cortex's JSON list when the client asks for JSON. Both list tenants by series
// count, most first, then by tenant ID (Cortex's UserStatsByTimeseries order).
import { escapeHtml, htmlPage } from '../server/index.js';
import type { IngesterTenantStats } from './ingester.js';

/** One entry of the JSON answer (Cortex's UserIDStats field names). */
export interface UserIdStatsJson {
  userID: string;
  ingestionRate: number;
  numSeries: number;
  APIIngestionRate: number;
  RuleIngestionRate: number;
  loadedBlocks: number;
}

export function sortUserStats(stats: readonly IngesterTenantStats[]): IngesterTenantStats[] {
  return [...stats].sort(
    (a, b) =>
      b.stats.numSeries - a.stats.numSeries ||
      (a.tenant < b.tenant ? -1 : a.tenant > b.tenant ? 1 : 0),
  );
}

export function userStatsJson(stats: readonly IngesterTenantStats[]): UserIdStatsJson[] {
  return sortUserStats(stats).map(({ tenant, stats: s, loadedBlocks }) => ({
    userID: tenant,
    ingestionRate: s.ingestionRate,
    numSeries: s.numSeries,
    APIIngestionRate: s.apiIngestionRate,
    RuleIngestionRate: s.ruleIngestionRate,
    loadedBlocks,
  }));
}

/** The HTML page; `nowMs` is shown as the page's current time (UTC). */
export function renderUserStatsPage(stats: readonly IngesterTenantStats[], nowMs: number): string {
  const rows = sortUserStats(stats)
    .map(
      ({ tenant, stats: s, loadedBlocks }) =>
        `<tr><td>${escapeHtml(tenant)}</td>` +
        `<td class="num">${loadedBlocks}</td>` +
        `<td class="num">${s.numSeries}</td>` +
        `<td class="num">${s.ingestionRate.toFixed(2)}</td>` +
        `<td class="num">${s.apiIngestionRate.toFixed(2)}</td>` +
        `<td class="num">${s.ruleIngestionRate.toFixed(2)}</td></tr>`,
    )
    .join('\n');
  const body = `<h1>Ingester Stats</h1>
<p>Current time: ${escapeHtml(new Date(nowMs).toISOString())}</p>
<p class="note">Stats of this ingester only; they do not account for the replication factor.</p>
<table>
<thead><tr><th>User</th><th>Loaded Blocks</th><th># Series</th><th>Total Ingest Rate</th><th>API Ingest Rate</th><th>Rule Ingest Rate</th></tr></thead>
<tbody>
${rows === '' ? '<tr><td colspan="6" class="note">No tenant has data on this ingester.</td></tr>' : rows}
</tbody>
</table>`;
  return htmlPage('Ingester Stats', body, '.num { text-align: right; }\n');
}
