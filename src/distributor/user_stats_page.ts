import { escapeHtml, htmlPage } from '../server/index.js';
import type { AllUserStats } from './distributor.js';

/**
 * `/distributor/all_user_stats` (legacy `/all_user_stats`): Cortex's table of per-tenant
 * loaded blocks, series and ingestion rates summed over the ingesters (the reference's
 * tenant stats pages list the blocks too). Like Cortex, the sums are not divided
 * by the replication factor; the page says so and shows the factor.
 */
export function renderUserStatsPage(nowMs: number, all: AllUserStats): string {
  const rows = all.stats
    .map((s) => {
      const cells = [
        `<td>${escapeHtml(s.userID)}</td>`,
        `<td align="right">${s.loadedBlocks}</td>`,
        `<td align="right">${s.numSeries}</td>`,
        `<td align="right">${s.ingestionRate.toFixed(2)}</td>`,
        `<td align="right">${s.APIIngestionRate.toFixed(2)}</td>`,
        `<td align="right">${s.RuleIngestionRate.toFixed(2)}</td>`,
      ];
      return `<tr>${cells.join('')}</tr>`;
    })
    .join('\n');
  const empty =
    all.stats.length === 0
      ? '<tr><td colspan="6">No tenant has data on the ingesters.</td></tr>'
      : '';
  return htmlPage(
    'Strata Ingester Stats',
    `<h1>Ingester Stats</h1>
<p>Current time: ${escapeHtml(new Date(nowMs).toISOString())}</p>
<p><b>NB stats do not account for replication factor, which is currently set to ${all.replicationFactor}</b></p>
<p class="note">Queried ingesters: ${all.queriedIngesters}</p>
<table>
<thead>
<tr><th>User</th><th>Loaded Blocks</th><th># Series</th><th>Total Ingest Rate</th><th>API Ingest Rate</th><th>Rule Ingest Rate</th></tr>
</thead>
<tbody>
${rows}${empty}
</tbody>
</table>`,
  );
}
