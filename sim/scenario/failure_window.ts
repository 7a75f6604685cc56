import type { CheckResult, RunEvent, Violation } from '../workloads/index.js';

/** Events listed in a window at most (the earliest ones; `events_omitted` counts the rest). */
const MAX_WINDOW_EVENTS = 40;

/** One event of a failure window, times in ms after the scenario epoch (like `virtual_ms`). */
export interface WindowEvent {
  at_ms: number;
  node: string;
  kind: string;
  detail: string;
}

/** The report's `first_failure`: the first violated check and the events that show it. */
export interface FirstFailure {
  check: string;
  /** The violation, as the check states it. */
  violation: string;
  window: {
    from_ms: number;
    to_ms: number;
    events: WindowEvent[];
    events_omitted?: number;
  };
}

export interface FailureWindowInput {
  checks: readonly CheckResult[];
  /** The schedule's faults as events (see faultTimeline), absolute times. */
  faults: readonly RunEvent[];
  epochMs: number;
  /** When the checks judged the run (its end): when end-state violations are observed. */
  endMs: number;
}

interface Candidate {
  check: string;
  order: number;
  violation: Violation;
  from: number;
  to: number;
}

/**
 * Names the first violated check and the shortest window of events that shows it.
 *
 * First: the failing check whose earliest violation was observed earliest in virtual time;
 * a violation the check cannot time (it judges the end state) counts as observed at the end
 * of the run, and ties go to the check listed first. Within that check, the earliest
 * violation, and among equally early ones the shortest window.
 *
 * Window: from the first event of the violated data (the first push attempt that carried a
 * lost sample, the cut of an unshipped block) to when the violation was observed; for an
 * end-state violation of data on known nodes, to the first restart of one of them after
 * that data's last event (where recovery shows the loss), else to the end of the run. The
 * events are the violation's own plus the faults overlapping the window (on its nodes
 * when the check names them).
 */
export function firstFailure(input: FailureWindowInput): FirstFailure | undefined {
  let best: Candidate | undefined;
  input.checks.forEach((c, order) => {
    if (c.verdict !== 'fail') return;
    const violations: Violation[] =
      c.violations !== undefined && c.violations.length > 0
        ? c.violations
        : [{ message: c.detail, events: [] }];
    for (const v of violations) {
      const cand = candidate(c.name, order, v, input);
      if (best === undefined || better(cand, best)) best = cand;
    }
  });
  if (best === undefined) return undefined;
  const b = best;
  const nodes = b.violation.nodes === undefined ? undefined : new Set(b.violation.nodes);
  const faults = input.faults.filter(
    (e) =>
      e.at <= b.to &&
      (e.until ?? e.at) >= b.from &&
      (nodes === undefined || nodes.has(e.node) || e.node === '-'),
  );
  const events = [...b.violation.events, ...faults]
    .map((e, i) => ({ e, i }))
    .sort((x, y) => x.e.at - y.e.at || x.i - y.i)
    .map(({ e }) => ({
      at_ms: e.at - input.epochMs,
      node: e.node,
      kind: e.kind,
      detail: e.detail,
    }));
  const omitted = events.length - MAX_WINDOW_EVENTS;
  return {
    check: b.check,
    violation: b.violation.message,
    window: {
      from_ms: b.from - input.epochMs,
      to_ms: b.to - input.epochMs,
      events: events.slice(0, MAX_WINDOW_EVENTS),
      ...(omitted > 0 ? { events_omitted: omitted } : {}),
    },
  };
}

function candidate(
  check: string,
  order: number,
  v: Violation,
  input: FailureWindowInput,
): Candidate {
  const times = v.events.map((e) => e.at);
  const last = times.length === 0 ? undefined : Math.max(...times);
  let to = v.observedAt;
  if (to === undefined && v.nodes !== undefined && last !== undefined) {
    const nodes = new Set(v.nodes);
    to = input.faults.find(
      (f) => f.at >= last && nodes.has(f.node) && (f.kind === 'restart' || f.kind === 'start'),
    )?.at;
  }
  to ??= input.endMs;
  const from = Math.min(to, ...times);
  return { check, order, violation: v, from, to };
}

function better(a: Candidate, b: Candidate): boolean {
  if (a.to !== b.to) return a.to < b.to;
  if (a.order !== b.order) return a.order < b.order;
  return a.to - a.from < b.to - b.from;
}

/** The human report's lines for a first failure. */
export function formatFirstFailure(f: FirstFailure, fmt: (ms: number) => string): string[] {
  const w = f.window;
  const out = [
    `first violated check: ${f.check}: ${f.violation}`,
    `  window +${fmt(w.from_ms)} .. +${fmt(w.to_ms)} (${w.events.length + (w.events_omitted ?? 0)} events):`,
  ];
  for (const e of w.events)
    out.push(`    +${fmt(e.at_ms)} ${e.node} ${eventText(e.kind, e.detail)}`);
  if (w.events_omitted !== undefined) out.push(`    … ${w.events_omitted} more`);
  return out;
}

/** `kind detail`, or the detail alone when it already starts with the kind (`crash b`). */
export function eventText(kind: string, detail: string): string {
  return detail.startsWith(kind.replace(/_/g, ' ')) ? detail : `${kind} ${detail}`;
}
