import { formatDuration } from '../config/index.js';
import { escapeHtml, htmlPage } from '../server/index.js';
import type { ElectedReplica } from './ha_tracker.js';

export interface HATrackerPageInput {
  readonly nowMs: number;
  readonly updateTimeoutMs: number;
  readonly failoverTimeoutMs: number;
  readonly elected: readonly ElectedReplica[];
}

/**
 * `/distributor/ha_tracker` (legacy `/ha-tracker`): Cortex's table of elected replicas with
 * the time until the next KV update and until a failover becomes possible.
 */
export function renderHATrackerPage(input: HATrackerPageInput): string {
  const rows = input.elected
    .map((e) => {
      const cells = [
        e.tenant,
        e.cluster,
        e.replica,
        new Date(e.receivedAt).toISOString(),
        formatDuration(e.receivedAt + input.updateTimeoutMs - input.nowMs),
        formatDuration(e.receivedAt + input.failoverTimeoutMs - input.nowMs),
      ];
      return `<tr>${cells.map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`;
    })
    .join('\n');
  const empty =
    input.elected.length === 0
      ? '<tr><td colspan="6">No elected replicas (HA tracking disabled, or no HA samples received yet).</td></tr>'
      : '';
  return htmlPage(
    'Strata HA Tracker Status',
    `<h1>HA Tracker Status</h1>
<p>Current time: ${escapeHtml(new Date(input.nowMs).toISOString())}</p>
<table width="100%" border="1">
<thead>
<tr><th>User ID</th><th>Cluster</th><th>Replica</th><th>Elected Time</th><th>Time Until Update</th><th>Time Until Failover</th></tr>
</thead>
<tbody>
${rows}${empty}
</tbody>
</table>`,
  );
}
