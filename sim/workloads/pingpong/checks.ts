import { formatDuration } from '../../fields/index.js';
import type { CheckResult, RunEvent, Violation } from '../workload.js';
import type { AckLedger } from './ledger.js';

const decoder = new TextDecoder();
const MAX_LISTED = 10;

/** The receiver's log as the checks read it: complete lines only (a torn tail is ignored, as recovery does). */
export interface ParsedLog {
  entries: string[];
  /** Bytes after the last newline (a torn append the receiver would drop on recovery). */
  incompleteTail: number;
}

export function parseLog(bytes: Uint8Array | undefined): ParsedLog {
  if (bytes === undefined) return { entries: [], incompleteTail: 0 };
  const text = decoder.decode(bytes);
  const complete = text.lastIndexOf('\n') + 1;
  const entries = text.slice(0, complete).split('\n');
  entries.pop(); // the empty string after the last newline
  return { entries, incompleteTail: text.length - complete };
}

function listSome(values: readonly (string | number)[]): string {
  const shown = values.slice(0, MAX_LISTED).join(', ');
  return values.length > MAX_LISTED ? `${shown}, … (${values.length} in all)` : shown;
}

function result(name: string, failures: string | undefined, okDetail: string): CheckResult {
  return failures === undefined
    ? { name, verdict: 'pass', detail: okDetail }
    : { name, verdict: 'fail', detail: failures };
}

/** The sender's events of one id: its first send and its first ack, on the sender's lane. */
export function messageEvents(ledger: AckLedger, id: number, sender: string): RunEvent[] {
  const out: RunEvent[] = [];
  const sentAt = ledger.sentIds.get(id);
  const ackedAt = ledger.ackedIds.get(id);
  if (sentAt !== undefined)
    out.push({ at: sentAt, node: sender, kind: 'msg.sent', detail: `id ${id}` });
  if (ackedAt !== undefined)
    out.push({ at: ackedAt, node: sender, kind: 'msg.acked', detail: `id ${id}` });
  return out;
}

/**
 * Every id the receiver acknowledged is in its durable log. A missing id's evidence is its
 * send and ack; the receiver's faults after them explain the loss (`nodes`).
 */
export function checkDurability(
  ledger: AckLedger,
  log: ParsedLog,
  where: string,
  epochMs: number,
  nodes: { sender: string; receiver: string } = { sender: 'sender', receiver: 'receiver' },
): CheckResult {
  const present = new Set(log.entries);
  const missing = [...ledger.ackedIds].filter(([id]) => !present.has(String(id)));
  const violations: Violation[] = missing.map(([id]) => ({
    message: `acknowledged id ${id} is missing from ${where}`,
    events: messageEvents(ledger, id, nodes.sender),
    nodes: [nodes.receiver],
  }));
  return withViolations(
    violations,
    result(
      'durability',
      missing.length === 0
        ? undefined
        : `${missing.length} acknowledged id(s) missing from ${where}: ` +
            listSome(
              missing.map(([id, at]) => `${id} (acked at +${formatDuration(at - epochMs)})`),
            ),
      `all ${ledger.ackedIds.size} acknowledged ids are durable in ${where}`,
    ),
  );
}

function withViolations(violations: Violation[], r: CheckResult): CheckResult {
  return r.verdict === 'fail' && violations.length > 0 ? { ...r, violations } : r;
}

/** No id appears twice in the log. */
export function checkExactlyOnce(log: ParsedLog, where: string): CheckResult {
  const counts = new Map<string, number>();
  for (const e of log.entries) counts.set(e, (counts.get(e) ?? 0) + 1);
  const dup = [...counts].filter(([, n]) => n > 1);
  return result(
    'exactly_once',
    dup.length === 0
      ? undefined
      : `${dup.length} id(s) logged more than once in ${where}: ${listSome(dup.map(([id, n]) => `${id} ×${n}`))}`,
    `${log.entries.length} log entries, no duplicates`,
  );
}

/** Every log entry is an id the sender sent. */
export function checkNoPhantoms(ledger: AckLedger, log: ParsedLog, where: string): CheckResult {
  const phantoms = log.entries.filter((e) => {
    const id = Number(e);
    return !/^\d+$/.test(e) || !ledger.sentIds.has(id);
  });
  const tail =
    log.incompleteTail > 0 ? ` (ignored a torn tail of ${log.incompleteTail} bytes)` : '';
  return result(
    'no_phantoms',
    phantoms.length === 0
      ? undefined
      : `${phantoms.length} entr(y/ies) in ${where} were never sent: ${listSome(phantoms.map((p) => JSON.stringify(p)))}`,
    `every log entry was sent by the sender${tail}`,
  );
}

/**
 * After the faults end (`quietAtMs`), every message is acknowledged within `withinMs`:
 * a message first sent at `s` must be acked by `max(s, quietAt) + within`. Messages whose
 * deadline falls after the end of the run are not judged.
 */
export function checkLiveness(
  ledger: AckLedger,
  opts: {
    quietAtMs: number;
    withinMs: number;
    endMs: number;
    epochMs: number;
    expectedMessages: number;
    sender?: string;
  },
): CheckResult {
  const late: string[] = [];
  const violations: Violation[] = [];
  let judged = 0;
  for (const [id, sentAt] of ledger.sentIds) {
    const deadline = Math.max(sentAt, opts.quietAtMs) + opts.withinMs;
    if (deadline > opts.endMs) continue;
    judged++;
    const ackedAt = ledger.ackedIds.get(id);
    if (ackedAt === undefined) late.push(`${id} (never acked)`);
    else if (ackedAt > deadline)
      late.push(`${id} (acked ${formatDuration(ackedAt - deadline)} after its deadline)`);
    if (ackedAt === undefined || ackedAt > deadline)
      violations.push({
        message: `id ${id} not acknowledged by its deadline`,
        observedAt: deadline,
        events: messageEvents(ledger, id, opts.sender ?? 'sender').filter((e) => e.at <= deadline),
      });
  }
  const unsent = opts.expectedMessages - ledger.sentIds.size;
  const rel = (t: number): string => `+${formatDuration(t - opts.epochMs)}`;
  if (late.length > 0) {
    return {
      name: 'liveness',
      verdict: 'fail',
      detail: `${late.length} message(s) not acknowledged within ${formatDuration(opts.withinMs)} after faults healed at ${rel(opts.quietAtMs)}: ${listSome(late)}`,
      violations,
    };
  }
  return {
    name: 'liveness',
    verdict: 'pass',
    detail:
      `${judged} message(s) judged, all acknowledged within ${formatDuration(opts.withinMs)} after faults healed at ${rel(opts.quietAtMs)}` +
      (unsent > 0 ? `; ${unsent} not sent before the run ended` : ''),
  };
}
