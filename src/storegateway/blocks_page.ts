/**
 * `/store-gateway/tenant/{tenant}/blocks`: a tenant's blocks as the bucket has them (not
 * only those this gateway holds), as a table (Cortex/Mimir's columns) and as a timeline
 * drawn in inline SVG — one bar per block placed by its time range, one band per compaction
 * level (overlapping blocks of a level, such as replicas before compaction, stack in lanes),
 * deletion-marked blocks hatched — so an operator sees the bucket at a glance. Every value
 * that comes from the bucket is escaped.
 */
import { listGlobalMarks, readGlobalDeletionMark } from '../bucket/index.js';
import { forEachBounded } from '../ingester/index.js';
import { isObjectNotFound, type Bucket } from '../runtime/index.js';
import { escapeHtml, htmlPage } from '../server/index.js';
import { isCanonicalUlid, parseBlockMeta, ulidTime, type BlockMeta } from '../tsdb/index.js';
import { TENANT_ID_EXTERNAL_LABEL } from './meta_filters.js';

/** One block as the page shows it. */
export interface BlockRow {
  id: string;
  /** Undefined when meta.json is missing or unreadable (`problem` says which). */
  meta?: BlockMeta;
  problem?: string;
  /** meta.json's last modification (ms). */
  uploadedAt?: number;
  /** Deletion mark time (ms). */
  deletionMarkedAt?: number;
  /** Held by this gateway, and whether open in memory. */
  held: boolean;
  open: boolean;
}

/** Reads the tenant's blocks from the bucket (`concurrency` meta.json reads at a time). */
export async function loadBlockRows(
  bucket: Bucket,
  tenant: string,
  held: ReadonlyMap<string, { open: boolean }>,
  concurrency: number,
): Promise<BlockRow[]> {
  const ids = (await bucket.list(`${tenant}/`))
    .filter((e) => e.endsWith('/'))
    .map((e) => e.slice(tenant.length + 1, -1))
    .filter(isCanonicalUlid);
  const marked = new Set((await listGlobalMarks(bucket, tenant)).deletion);
  const rows: BlockRow[] = ids.map((id) => ({
    id,
    held: held.has(id),
    open: held.get(id)?.open ?? false,
  }));
  await forEachBounded(rows, concurrency, async (row) => {
    const path = `${tenant}/${row.id}/meta.json`;
    try {
      row.meta = parseBlockMeta(new TextDecoder().decode(await bucket.get(path)));
      row.uploadedAt = (await bucket.attributes(path)).lastModified;
    } catch (err) {
      row.problem = isObjectNotFound(err) ? 'no meta.json (partial block)' : (err as Error).message;
    }
    if (marked.has(row.id)) {
      try {
        const mark = await readGlobalDeletionMark(bucket, tenant, row.id);
        if (mark !== undefined) row.deletionMarkedAt = mark.deletion_time * 1000;
      } catch (err) {
        row.problem = `unreadable deletion mark: ${(err as Error).message}`;
      }
    }
  });
  return rows.sort((a, b) => {
    const x = a.meta?.minTime ?? ulidTime(a.id);
    const y = b.meta?.minTime ?? ulidTime(b.id);
    return x - y || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  });
}

export function renderBlocksPage(tenant: string, rows: readonly BlockRow[], nowMs: number): string {
  const title = `Store-gateway: blocks of tenant ${tenant}`;
  const table = rows.map(renderRow).join('\n');
  const held = rows.filter((r) => r.held).length;
  const marked = rows.filter((r) => r.deletionMarkedAt !== undefined).length;
  return htmlPage(
    title,
    `<h1>${escapeHtml(title)}</h1>
<p>Current time: ${escapeHtml(iso(nowMs))}. Blocks in the bucket: ${rows.length}; held by this store-gateway: ${held}; marked for deletion: ${marked}. <a href="../../tenants">All tenants</a></p>
<h2>Timeline</h2>
${renderTimeline(rows)}
<h2>Blocks</h2>
<table>
<thead><tr><th>Block ID</th><th>ULID Time</th><th>Min Time</th><th>Max Time</th><th>Duration</th><th>Level</th><th>Sources</th><th>Labels (excl. ${TENANT_ID_EXTERNAL_LABEL})</th><th>Uploaded</th><th>Deletion Mark</th><th>This Gateway</th></tr></thead>
<tbody class="blocks">
${table}
</tbody>
</table>`,
    `.blocks { font-family: monospace; }
tr.deleted { color: #888; text-decoration: line-through; }
tr.problem { background: #fde2e2; }
svg.timeline { border: 1px solid #ccc; background: #fcfcfc; }
.legend span { display: inline-block; margin-right: 1.5em; }
`,
  );
}

function renderRow(row: BlockRow): string {
  const m = row.meta;
  const cls =
    row.problem !== undefined
      ? ' class="problem"'
      : row.deletionMarkedAt !== undefined
        ? ' class="deleted"'
        : '';
  const here = row.held ? (row.open ? 'loaded' : 'loaded (lazy, closed)') : '';
  const cells =
    m === undefined
      ? [row.id, iso(ulidTime(row.id)), '', '', '', '', '', row.problem ?? '', '', '', here]
      : [
          row.id,
          iso(ulidTime(row.id)),
          iso(m.minTime),
          iso(m.maxTime),
          formatDuration(m.maxTime - m.minTime),
          String(m.compaction.level),
          m.compaction.sources.join('\n'),
          formatLabels(m.thanos?.labels ?? {}),
          row.uploadedAt === undefined ? '' : iso(row.uploadedAt),
          row.deletionMarkedAt === undefined ? '' : iso(row.deletionMarkedAt),
          here,
        ];
  return `<tr${cls}>${cells.map((c) => `<td>${escapeHtml(c).replace(/\n/g, '<br>')}</td>`).join('')}</tr>`;
}

const WIDTH = 1000;
const LEFT = 60;
const RIGHT = 10;
const LANE = 14;
const GAP = 10;
const AXIS = 24;
const PALETTE = ['#4e79a7', '#59a14f', '#f28e2b', '#b07aa1', '#76b7b2', '#edc948', '#e15759'];

/** The SVG timeline: bands by level, lanes within a band so overlapping bars do not hide. */
export function renderTimeline(rows: readonly BlockRow[]): string {
  const blocks = rows.filter((r): r is BlockRow & { meta: BlockMeta } => r.meta !== undefined);
  if (blocks.length === 0) return '<p class="note">No readable blocks to draw.</p>';
  const t0 = Math.min(...blocks.map((b) => b.meta.minTime));
  const t1 = Math.max(...blocks.map((b) => b.meta.maxTime), t0 + 1);
  const plot = WIDTH - LEFT - RIGHT;
  const x = (t: number): number => LEFT + ((t - t0) / (t1 - t0)) * plot;
  const levels = [...new Set(blocks.map((b) => b.meta.compaction.level))].sort((a, b) => a - b);
  const parts: string[] = [];
  let y = GAP;
  for (const level of levels) {
    const lanes: number[] = [];
    const bars: string[] = [];
    const ofLevel = blocks
      .filter((b) => b.meta.compaction.level === level)
      .sort((a, b) => a.meta.minTime - b.meta.minTime || (a.id < b.id ? -1 : 1));
    for (const b of ofLevel) {
      let lane = lanes.findIndex((end) => end <= b.meta.minTime);
      if (lane < 0) lane = lanes.push(0) - 1;
      lanes[lane] = b.meta.maxTime;
      bars.push(renderBar(b, x(b.meta.minTime), x(b.meta.maxTime), y + lane * LANE, level));
    }
    const height = lanes.length * LANE;
    parts.push(
      `<text x="4" y="${y + Math.min(height, LANE) - 3}" font-size="11">L${level}</text>`,
      `<line x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${y + height + GAP / 2}" y2="${y + height + GAP / 2}" stroke="#eee"/>`,
      ...bars,
    );
    y += height + GAP;
  }
  const axisY = y + 4;
  for (let i = 0; i <= 4; i++) {
    const t = t0 + ((t1 - t0) * i) / 4;
    const tx = x(t);
    const anchor = i === 0 ? 'start' : i === 4 ? 'end' : 'middle';
    parts.push(
      `<line x1="${tx.toFixed(1)}" x2="${tx.toFixed(1)}" y1="0" y2="${axisY}" stroke="#ddd"/>`,
      `<text x="${tx.toFixed(1)}" y="${axisY + 14}" font-size="10" text-anchor="${anchor}">${escapeHtml(iso(Math.round(t)).slice(0, 16).replace('T', ' '))}</text>`,
    );
  }
  const total = axisY + AXIS;
  return `<svg class="timeline" xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${total}" viewBox="0 0 ${WIDTH} ${total}" role="img" aria-label="block timeline">
<defs><pattern id="deleted" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#ddd"/><line x1="0" y1="0" x2="0" y2="6" stroke="#c0392b" stroke-width="2"/></pattern></defs>
${parts.join('\n')}
</svg>
<p class="legend"><span>Bars: one block each, by level (L1 = from ingesters)</span><span><svg width="18" height="10"><rect width="18" height="10" fill="url(#deleted)" stroke="#c0392b"/></svg> marked for deletion</span><span>bold outline: held by this store-gateway</span><span>Hover a bar for its ID, times and sources.</span></p>`;
}

function renderBar(
  b: BlockRow & { meta: BlockMeta },
  x0: number,
  x1: number,
  y: number,
  level: number,
): string {
  const deleted = b.deletionMarkedAt !== undefined;
  const fill = deleted
    ? 'url(#deleted)'
    : (PALETTE[(level - 1 + PALETTE.length) % PALETTE.length] ?? '#888');
  const stroke = deleted ? '#c0392b' : b.held ? '#222' : '#fff';
  const title = [
    b.id,
    `${iso(b.meta.minTime)} – ${iso(b.meta.maxTime)} (${formatDuration(b.meta.maxTime - b.meta.minTime)})`,
    `level ${level}`,
    `sources: ${b.meta.compaction.sources.join(', ') || '(none)'}`,
    ...(deleted ? [`marked for deletion at ${iso(b.deletionMarkedAt ?? 0)}`] : []),
    b.held ? 'held by this store-gateway' : 'not held by this store-gateway',
  ].join('\n');
  return `<rect class="block${deleted ? ' deleted' : ''}" data-block="${escapeHtml(b.id)}" x="${x0.toFixed(1)}" y="${y}" width="${Math.max(1, x1 - x0).toFixed(1)}" height="${LANE - 2}" fill="${fill}" stroke="${stroke}" stroke-width="${b.held ? 1.5 : 0.5}"${deleted ? ' stroke-dasharray="3,2"' : ''}><title>${escapeHtml(title)}</title></rect>`;
}

function formatLabels(labels: Readonly<Record<string, string>>): string {
  return Object.keys(labels)
    .filter((k) => k !== TENANT_ID_EXTERNAL_LABEL)
    .sort()
    .map((k) => `${k}="${labels[k] ?? ''}"`)
    .join(', ');
}

/** ISO-8601 in UTC, without milliseconds when they are zero. */
export function iso(ms: number): string {
  if (!Number.isFinite(ms) || Math.abs(ms) > 8.64e15) return String(ms);
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

/** Go's time.Duration String for whole milliseconds: `2h0m0s`, `1m30s`, `1.5s`, `0s`. */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  const sign = ms < 0 ? '-' : '';
  let rest = Math.abs(ms);
  if (rest < 1000) return `${sign}${rest}ms`;
  const h = Math.floor(rest / 3_600_000);
  rest -= h * 3_600_000;
  const m = Math.floor(rest / 60_000);
  rest -= m * 60_000;
  const s = rest / 1000;
  const secs = `${Number.isInteger(s) ? s : Number(s.toFixed(3))}s`;
  if (h > 0) return `${sign}${h}h${m}m${secs}`;
  if (m > 0) return `${sign}${m}m${secs}`;
  return `${sign}${secs}`;
}
