import type { FileSystem } from '../../src/runtime/index.js';
import { formatDuration } from '../fields/index.js';
import type { CheckResult, RunEvent } from '../workloads/index.js';
import { eventText, type FirstFailure } from './failure_window.js';
import { REPORT_CSS, REPORT_JS } from './html_report_assets.js';
import type { SimReport } from './report.js';

const LABEL_W = 190;
const PLOT_W = 1100;
const LANE_H = 26;
const AXIS_H = 24;
/** Violations listed per failing check (the timeline draws all of them). */
const MAX_LISTED_VIOLATIONS = 50;

/**
 * Writes the run's HTML report to `path`: one self-contained page (inline CSS, script and
 * SVG; no network) with a timeline per node and the checks' verdicts, a failing check's
 * violations highlighted. The swarm links one per failure.
 */
export async function writeHtmlReport(
  report: SimReport,
  fs: FileSystem,
  path: string,
): Promise<void> {
  await fs.writeFile(path, renderHtmlReport(report));
}

/** The page as a string (see writeHtmlReport). */
export function renderHtmlReport(report: SimReport): string {
  const d = report.details;
  const title = `${report.scenario} seed ${report.seed}: ${report.passed ? 'PASS' : 'FAIL'}`;
  const first = report.first_failure;
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>${esc(title)}</title>
<style>${REPORT_CSS}</style>
</head>
<body data-first-check="${esc(first?.check ?? '')}">
<h1>${esc(report.scenario)} <span class="meta">seed ${report.seed}</span> <span class="${report.passed ? 'verdict-pass' : 'verdict-fail'}">${report.passed ? 'PASS' : 'FAIL'}</span></h1>
<div class="meta">${report.events} events, ${esc(formatDuration(report.virtual_ms))} virtual in ${report.wall_ms}ms wall (x${report.virtual_wall_ratio}); trace ${esc(report.trace_hash)}; commit ${esc(report.commit)}</div>
<div class="meta">${esc(d.summary)}</div>
<div>replay: <code>${esc(report.replay)}</code></div>
${first === undefined ? '' : firstFailureSection(first)}
<h2>Checks</h2>
<table class="checks">${report.checks.map(checkRow).join('\n')}</table>
<h2>Timeline</h2>
<div id="status"></div>
${legend()}
${timelineSvg(report)}
${violationLists(report, d.epochMs)}
<h2>Plan</h2>
<pre>${esc(d.plan.join('\n'))}</pre>
<script>${REPORT_JS}</script>
</body></html>
`;
}

function firstFailureSection(f: FirstFailure): string {
  const w = f.window;
  const items = w.events
    .map(
      (e) =>
        `<li>+${esc(fmt(e.at_ms))} <b>${esc(e.node)}</b> ${esc(eventText(e.kind, e.detail))}</li>`,
    )
    .join('');
  const more = w.events_omitted === undefined ? '' : `<li>… ${w.events_omitted} more</li>`;
  return `<div class="first-failure" id="first-failure" data-check="${esc(f.check)}">
<b>First violated check: ${esc(f.check)}</b>: ${esc(f.violation)}<br>
window +${esc(fmt(w.from_ms))} .. +${esc(fmt(w.to_ms))}
<ol class="window-events">${items}${more}</ol></div>`;
}

function checkRow(c: CheckResult): string {
  return `<tr class="check ${c.verdict}" data-check="${esc(c.name)}"><td class="verdict">${c.verdict === 'pass' ? 'PASS' : 'FAIL'}</td><td><b>${esc(c.name)}</b></td><td>${esc(c.detail)}</td></tr>`;
}

function legend(): string {
  const items: [string, string][] = [
    ['#cf222e', 'crash'],
    ['#82071e', 'power loss'],
    ['#1a7f37', 'restart / start'],
    ['#fb8f44', 'partition'],
    ['#2da44e', 'push acked'],
    ['#d4a72c', 'push refused'],
    ['#8c959f', 'push outcome unknown'],
    ['#0969da', 'block cut'],
    ['#8250df', 'block uploaded'],
  ];
  return `<div class="legend">${items.map(([c, t]) => `<span><i style="background:${c}"></i>${t}</span>`).join('')}<span><i style="border:2px solid #cf222e"></i>violation evidence</span></div>`;
}

/** Lanes: the topology's nodes, then other names events use (services), then the cluster. */
function lanesOf(report: SimReport): { name: string; label: string }[] {
  const d = report.details;
  const lanes = d.nodes.map((n) => ({ name: n.name, label: `${n.name} (${n.role})` }));
  const known = new Set(lanes.map((l) => l.name));
  const extra = new Set<string>();
  const note = (node: string): void => {
    if (node !== '-' && !known.has(node)) extra.add(node);
  };
  for (const e of d.timeline) note(e.node);
  for (const c of report.checks)
    for (const v of c.violations ?? []) for (const e of v.events) note(e.node);
  for (const name of [...extra].sort()) lanes.push({ name, label: name });
  lanes.push({ name: '-', label: 'cluster' });
  return lanes;
}

function timelineSvg(report: SimReport): string {
  const d = report.details;
  const lanes = lanesOf(report);
  const laneIndex = new Map(lanes.map((l, i) => [l.name, i]));
  const span = Math.max(1, d.endMs - d.epochMs);
  const x = (t: number): number =>
    LABEL_W + (Math.min(Math.max(t, d.epochMs), d.endMs) - d.epochMs) * (PLOT_W / span);
  const y = (node: string): number => AXIS_H + (laneIndex.get(node) ?? lanes.length - 1) * LANE_H;
  const height = AXIS_H + lanes.length * LANE_H + 4;
  const parts: string[] = [];
  lanes.forEach((l, i) => {
    const top = AXIS_H + i * LANE_H;
    parts.push(
      `<rect class="lane-bg" x="0" y="${top}" width="${LABEL_W + PLOT_W}" height="${LANE_H}" fill="${i % 2 === 0 ? '#f6f8fa' : '#fff'}"/>`,
    );
    parts.push(`<text x="4" y="${top + 17}">${esc(l.label)}</text>`);
  });
  parts.push(...axis(d.epochMs, span, x, height));
  parts.push(...downPeriods(d.timeline, d.endMs, x, y));
  for (const e of d.timeline) parts.push(mark(e, x, y, d.epochMs));
  const first = report.first_failure;
  if (first !== undefined) {
    const x0 = x(d.epochMs + first.window.from_ms);
    const x1 = Math.max(x0 + 3, x(d.epochMs + first.window.to_ms));
    parts.push(
      `<rect class="failure-window" data-check="${esc(first.check)}" x="${r1(x0)}" y="${AXIS_H}" width="${r1(x1 - x0)}" height="${lanes.length * LANE_H}"><title>first failure window of ${esc(first.check)}</title></rect>`,
    );
  }
  for (const c of report.checks) {
    if (c.verdict !== 'fail') continue;
    parts.push(...violationMarks(c, x, y, d.epochMs));
  }
  return `<svg class="timeline" xmlns="http://www.w3.org/2000/svg" width="${LABEL_W + PLOT_W + 10}" height="${height}" viewBox="0 0 ${LABEL_W + PLOT_W + 10} ${height}">\n${parts.join('\n')}\n</svg>`;
}

function axis(epochMs: number, span: number, x: (t: number) => number, height: number): string[] {
  const out = [
    `<line class="axis" x1="${LABEL_W}" y1="${AXIS_H - 4}" x2="${LABEL_W + PLOT_W}" y2="${AXIS_H - 4}"/>`,
  ];
  const step = niceStep(span / 10);
  for (let t = 0; t <= span; t += step) {
    const px = r1(x(epochMs + t));
    out.push(
      `<line class="axis" x1="${px}" y1="${AXIS_H - 8}" x2="${px}" y2="${height}" stroke-opacity=".25"/>`,
    );
    out.push(`<text x="${px + 2}" y="${AXIS_H - 10}">+${esc(formatDuration(t))}</text>`);
  }
  return out;
}

function niceStep(raw: number): number {
  for (const s of [
    100, 250, 500, 1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000,
    1_800_000, 3_600_000,
  ])
    if (s >= raw) return s;
  return Math.ceil(raw / 3_600_000) * 3_600_000;
}

/** A node is down from a crash, power loss or stop until its next restart or start. */
function downPeriods(
  timeline: readonly RunEvent[],
  endMs: number,
  x: (t: number) => number,
  y: (node: string) => number,
): string[] {
  const downSince = new Map<string, number>();
  const out: string[] = [];
  const close = (node: string, at: number): void => {
    const since = downSince.get(node);
    if (since === undefined) return;
    downSince.delete(node);
    out.push(
      `<rect class="down" x="${r1(x(since))}" y="${y(node) + 2}" width="${r1(Math.max(1, x(at) - x(since)))}" height="${LANE_H - 4}"><title>${esc(node)} down</title></rect>`,
    );
  };
  for (const e of timeline) {
    if (e.kind === 'crash' || e.kind === 'power_loss' || e.kind === 'stop') {
      if (!downSince.has(e.node)) downSince.set(e.node, e.at);
    } else if (e.kind === 'restart' || e.kind === 'start') close(e.node, e.at);
  }
  for (const node of [...downSince.keys()]) close(node, endMs);
  return out;
}

function mark(
  e: RunEvent,
  x: (t: number) => number,
  y: (node: string) => number,
  epochMs: number,
): string {
  const px = r1(x(e.at));
  const top = y(e.node);
  const mid = top + LANE_H / 2;
  const title = `<title>${esc(`+${fmt(e.at - epochMs)} ${e.node} ${eventText(e.kind, e.detail)}`)}</title>`;
  const cls = e.kind.replace(/[^a-z_]+/g, '-');
  switch (e.kind) {
    case 'crash':
    case 'power_loss':
    case 'restart':
    case 'start':
    case 'stop':
      return `<path class="mark ${cls}" d="M${px - 5},${top + 3} L${px + 5},${top + 3} L${px},${mid + 3} Z">${title}</path>`;
    case 'partition': {
      const until = e.until ?? e.at;
      return `<rect class="partition" x="${px}" y="${top + LANE_H - 7}" width="${r1(Math.max(2, x(until) - x(e.at)))}" height="5">${title}</rect>`;
    }
    case 'push.acked':
    case 'push.refused':
    case 'push.unknown':
    case 'push.sent':
    case 'msg.sent':
    case 'msg.acked':
      return `<line class="mark ${e.kind === 'msg.acked' ? 'push-acked' : e.kind === 'msg.sent' ? 'push-sent' : cls}" x1="${px}" y1="${top + 6}" x2="${px}" y2="${top + LANE_H - 9}">${title}</line>`;
    case 'block.cut':
    case 'block.uploaded':
    case 'block.deleted':
      return `<rect class="mark ${cls}" x="${px - 3}" y="${mid - 3}" width="6" height="6">${title}</rect>`;
    default:
      if (e.until !== undefined)
        return `<rect class="span" x="${px}" y="${top + 8}" width="${r1(Math.max(2, x(e.until) - x(e.at)))}" height="8">${title}</rect>`;
      return `<circle class="mark other" cx="${px}" cy="${mid}" r="3">${title}</circle>`;
  }
}

/**
 * A failing check's evidence, circled on the timeline (the script dims other checks'). An
 * event several violations share (one push carrying many lost samples) is circled once.
 */
function violationMarks(
  c: CheckResult,
  x: (t: number) => number,
  y: (node: string) => number,
  epochMs: number,
): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const v of c.violations ?? [])
    for (const e of v.events) {
      const key = evidenceKey(e);
      if (seen.has(key)) continue;
      seen.add(key);
      const title = `<title>${esc(`${c.name}: +${fmt(e.at - epochMs)} ${e.node} ${eventText(e.kind, e.detail)} — ${v.message}`)}</title>`;
      out.push(
        `<circle class="violation" data-check="${esc(c.name)}" cx="${r1(x(e.at))}" cy="${y(e.node) + LANE_H / 2}" r="7">${title}</circle>`,
      );
    }
  return out;
}

/** Identifies an evidence event across violations (same time, lane, kind and detail). */
export function evidenceKey(e: RunEvent): string {
  return `${e.at}\u0000${e.node}\u0000${e.kind}\u0000${e.detail}`;
}

function violationLists(report: SimReport, epochMs: number): string {
  const failing = report.checks.filter((c) => c.verdict === 'fail');
  if (failing.length === 0) return '';
  const sections = failing.map((c) => {
    const vs = c.violations ?? [];
    const items = vs.slice(0, MAX_LISTED_VIOLATIONS).map((v) => {
      const when = v.observedAt === undefined ? 'at the end' : `+${fmt(v.observedAt - epochMs)}`;
      const samples = (v.samples ?? [])
        .slice(0, 5)
        .map(
          (s) =>
            `<code class="sample">${esc(`${s.tenant} ${s.series} t=+${fmt(s.timestamp - epochMs)}`)}</code>`,
        )
        .join(' ');
      return `<li class="violation-item" data-check="${esc(c.name)}">observed ${esc(when)}: ${esc(v.message)}${samples === '' ? '' : `<br>samples: ${samples}`}</li>`;
    });
    const more =
      vs.length > MAX_LISTED_VIOLATIONS
        ? `<li data-check="${esc(c.name)}">… ${vs.length - MAX_LISTED_VIOLATIONS} more</li>`
        : '';
    const none = vs.length === 0 ? `<li data-check="${esc(c.name)}">${esc(c.detail)}</li>` : '';
    return `<h3>${esc(c.name)}: ${vs.length} violation(s)</h3><ul class="violations">${items.join('')}${more}${none}</ul>`;
  });
  return `<h2>Violations</h2>${sections.join('\n')}`;
}

function fmt(ms: number): string {
  return formatDuration(Math.max(0, Math.round(ms)));
}

function r1(n: number): number {
  return Math.round(n * 10) / 10;
}

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
