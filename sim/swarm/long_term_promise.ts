import type { ScenarioDoc } from './family.js';

/**
 * The `long-term` family's bounds, and a checker that reads a derived scenario document
 * back and says whether its faults stay within the promise (the tests run it over many
 * profiles, so a change to the drawing cannot quietly break the promise).
 */

/** Faults start at or after +2m and are over by +12m30s (final reads at +15m). */
export const LT_FAULTS_FROM_MS = 120_000;
export const LT_FAULTS_UNTIL_MS = 750_000;
/** Operator marks between +6m30s (blocks shipped by then) and +10m30s (deleted before the end). */
export const LT_MARKS_FROM_MS = 390_000;
export const LT_MARKS_UNTIL_MS = 630_000;
/** The earliest first mark for a block range: its first block cut, plus 3m to ship it. */
export function firstMarkFloorMs(blockRange: number): number {
  return 1.5 * blockRange + 180_000;
}
/** With marks, ingesters other than the victim are disturbed only this long after the last. */
export const LT_NON_VICTIM_AFTER_MARKS_MS = 30_000;
/** How often a querier looks at its cached bucket indexes (Cortex: 1m). */
export const LT_QUERIER_INDEX_CHECK_MS = 60_000;

export type LtIngesterKind = 'crash' | 'power_loss' | 'stop' | 'cutoff' | 'cutoff_power_loss';

/** An object-store error burst or throttling window. */
export type LtWindow =
  | { kind: 'errors'; startMs: number; endMs: number; rate: number }
  | { kind: 'throttle'; startMs: number; endMs: number; opsPerSecond: number; burst: number };

/** What the shortest safe retention depends on (ms). */
export interface RetentionInputs {
  blockRange: number;
  ship: number;
  headCompaction: number;
  sync: number;
  consistencyDelay: number;
  cleanup: number;
  listDelay: number;
  /** The longest fault window (a bucket cut-off or an object-store error burst). */
  longestWindow: number;
}

/**
 * The shortest retention with which a block reaches the store-gateways (and the queriers'
 * bucket index) before its ingester deletes it locally: it is cut about half a block range
 * after its end, uploaded within a compaction and a ship interval (later by the longest
 * fault window), listed `listDelay` later, indexed by the cleaner within its interval, seen
 * by the queriers within their index refresh and loaded by the store-gateways within a sync
 * interval and the consistency delay.
 */
export function minRetentionMs(s: RetentionInputs): number {
  const shipped = s.blockRange / 2 + s.headCompaction + s.ship + 10_000;
  const discovered =
    s.listDelay + s.cleanup + LT_QUERIER_INDEX_CHECK_MS + s.sync + s.consistencyDelay + 10_000;
  return shipped + discovered + s.longestWindow + s.sync + 20_000;
}

interface Interval {
  node: string;
  startMs: number;
  endMs: number;
  powerLossMs?: number;
}

function msOf(v: unknown, what: string): number {
  const m = typeof v === 'string' ? /^(\d+)ms$/.exec(v) : null;
  if (m === null) throw new Error(`${what}: expected <n>ms, got ${JSON.stringify(v)}`);
  return Number(m[1]);
}

/** The first way `doc` (a derived `long-term` scenario) breaks the promise, or undefined. */
export function longTermPromiseViolation(doc: ScenarioDoc): string | undefined {
  const nodes = (doc.topology as { nodes: { name: string; run: string }[] }).nodes;
  const ingesters = nodes.filter((n) => n.run === 'ingester').map((n) => n.name);
  const gateways = nodes.filter((n) => n.run === 'store-gateway').map((n) => n.name);
  if (ingesters.length !== 3) return `${ingesters.length} ingesters, not 3`;
  if (gateways.length !== 2) return `${gateways.length} store-gateways, not 2`;
  const network = doc.network as Record<string, unknown>;
  if ((network.loss ?? 0) !== 0) return 'random message loss';
  const workload = doc.workload as Record<string, unknown>;
  const lt = workload.long_term as Record<string, unknown>;
  const store = doc.object_store as Record<string, unknown>;

  const entries = (doc.schedule as Record<string, unknown>[])
    .map((e, i) => ({ e, i, at: msOf(e.at, `schedule[${i}].at`) }))
    .sort((a, b) => a.at - b.at || a.i - b.i);
  const open = new Map<string, Interval>();
  const ingesterIntervals: Interval[] = [];
  const gatewayIntervals: Interval[] = [];
  const windows: { what: string; startMs: number; endMs: number }[] = [];
  let errorsFrom: number | undefined;
  let throttleFrom: number | undefined;
  let cutoff: Interval | undefined;
  for (const { e, at } of entries) {
    if (at < LT_FAULTS_FROM_MS || at > LT_FAULTS_UNTIL_MS)
      return `fault at ${at}ms outside [${LT_FAULTS_FROM_MS}, ${LT_FAULTS_UNTIL_MS}]ms`;
    const node = (e.crash ?? e.power_loss ?? e.stop ?? e.restart ?? e.start) as string | undefined;
    if (e.crash !== undefined || e.stop !== undefined || e.power_loss !== undefined) {
      const iv = open.get(node!) ?? { node: node!, startMs: at, endMs: Infinity };
      if (e.power_loss !== undefined) iv.powerLossMs = at;
      open.set(node!, iv);
      const list = gateways.includes(node!) ? gatewayIntervals : ingesterIntervals;
      if (!list.includes(iv)) list.push(iv);
    } else if (e.restart !== undefined || e.start !== undefined) {
      const iv = open.get(node!);
      if (iv === undefined) return `${node} restarted while up`;
      iv.endMs = at;
      open.delete(node!);
    } else if (e.partition !== undefined) {
      const groups = e.partition as string[][];
      const cut = groups[0]!.length === 1 ? groups[0]![0]! : undefined;
      if (groups[1]?.join() !== 'objstore' || cut === undefined || !ingesters.includes(cut))
        return `partition ${JSON.stringify(groups)} is not one ingester cut off from the bucket`;
      cutoff = open.get(cut) ?? { node: cut, startMs: at, endMs: Infinity };
      open.set(cut, cutoff);
      if (!ingesterIntervals.includes(cutoff)) ingesterIntervals.push(cutoff);
    } else if (e.heal !== undefined) {
      if (cutoff === undefined) return `heal at ${at}ms without a cut-off`;
      windows.push({ what: `cut-off of ${cutoff.node}`, startMs: cutoff.startMs, endMs: at });
      if (cutoff.powerLossMs === undefined) {
        cutoff.endMs = at;
        open.delete(cutoff.node);
      }
      cutoff = undefined;
    } else if (e.objstore_errors !== undefined) {
      const rate = e.objstore_errors as number;
      if (rate > 0.5) return `object-store error burst of ${rate}`;
      if (rate > 0) errorsFrom = at;
      else windows.push({ what: 'error burst', startMs: errorsFrom!, endMs: at });
    } else if (e.objstore_throttle !== undefined) {
      if (e.objstore_throttle !== 'off') throttleFrom = at;
      else windows.push({ what: 'throttling', startMs: throttleFrom!, endMs: at });
    } else return `unexpected schedule entry ${JSON.stringify(e)}`;
  }
  if (open.size > 0) return `${[...open.keys()].join(', ')} never came back`;

  // Object-store windows and cut-offs: short, and one at a time (a heal ends them all).
  windows.sort((a, b) => a.startMs - b.startMs);
  for (const [i, w] of windows.entries()) {
    if (w.endMs - w.startMs > 90_000) return `${w.what} lasts ${w.endMs - w.startMs}ms`;
    if (i > 0 && w.startMs <= windows[i - 1]!.endMs)
      return `${w.what} at ${w.startMs}ms overlaps ${windows[i - 1]!.what}`;
  }

  // Ingesters: one disturbed at a time; power loss only on the one disturbed so far.
  const marks = lt.mark_for_deletion as { ingester: string; at: string[] } | undefined;
  const marksOver =
    marks === undefined
      ? 0
      : Math.max(...marks.at.map((a) => msOf(a, 'mark'))) + LT_NON_VICTIM_AFTER_MARKS_MS;
  const disturbed = new Set<string>();
  ingesterIntervals.sort((a, b) => a.startMs - b.startMs);
  for (const [i, iv] of ingesterIntervals.entries()) {
    if (i > 0 && iv.startMs <= ingesterIntervals[i - 1]!.endMs)
      return `${iv.node} at ${iv.startMs}ms while ${ingesterIntervals[i - 1]!.node} is disturbed`;
    if (marks !== undefined && iv.node !== marks.ingester && iv.startMs < marksOver)
      return `${iv.node} disturbed at ${iv.startMs}ms, before the marks of ${marks.ingester} are over`;
    if (iv.powerLossMs !== undefined) {
      const others = [...disturbed].filter((n) => n !== iv.node);
      if (others.length > 0) return `power loss of ${iv.node} after ${others.join(', ')}`;
      if (marks !== undefined && iv.node !== marks.ingester)
        return `power loss of ${iv.node}, not the operator's victim ${marks.ingester}`;
    }
    disturbed.add(iv.node);
  }

  // Store-gateways: one down at a time, the next only once the last had time to sync twice.
  const sync = msOf(lt.sync_interval, 'sync_interval');
  gatewayIntervals.sort((a, b) => a.startMs - b.startMs);
  for (const [i, iv] of gatewayIntervals.entries())
    if (i > 0 && iv.startMs < gatewayIntervals[i - 1]!.endMs + 2 * sync + 60_000)
      return `${iv.node} down at ${iv.startMs}ms, too soon after the last store-gateway came back`;

  // Retention and deletion delays.
  const blockRange = msOf(workload.block_range, 'block_range');
  const retention = msOf(lt.retention_period, 'retention_period');
  const listDelay = msOf(store.list_delay, 'list_delay');
  const cleanup = msOf(lt.cleanup_interval, 'cleanup_interval');
  const longestWindow = Math.max(0, ...windows.map((w) => w.endMs - w.startMs));
  const need = minRetentionMs({
    blockRange,
    ship: msOf(lt.ship_interval, 'ship_interval'),
    headCompaction: msOf(lt.head_compaction_interval, 'head_compaction_interval'),
    sync,
    consistencyDelay: msOf(lt.consistency_delay, 'consistency_delay'),
    cleanup,
    listDelay,
    longestWindow,
  });
  if (retention < need || retention <= blockRange)
    return `retention ${retention}ms below ${Math.max(need, blockRange + 1)}ms`;
  const ignore = msOf(lt.ignore_deletion_mark_delay, 'ignore_deletion_mark_delay');
  if (ignore + sync + cleanup + listDelay + 20_000 > msOf(lt.deletion_delay, 'deletion_delay'))
    return 'store-gateways may still serve a block the cleaner deletes';
  if (marks !== undefined) {
    const floor = Math.max(LT_MARKS_FROM_MS, firstMarkFloorMs(blockRange));
    for (const a of marks.at) {
      const t = msOf(a, 'mark');
      if (t < floor || t > LT_MARKS_UNTIL_MS) return `mark at ${t}ms out of bounds`;
    }
  }
  // Deletions are required only where the victim surely shipped blocks before the marks.
  const deletions = (doc.checks as unknown[]).find(
    (c): c is { deletion_delay_honoured: { expect_deletions: boolean } } =>
      typeof c === 'object' && c !== null && 'deletion_delay_honoured' in c,
  );
  if (deletions?.deletion_delay_honoured.expect_deletions === true) {
    if (marks === undefined) return 'deletions expected without operator marks';
    const lost = ingesterIntervals.find(
      (iv) =>
        iv.node === marks.ingester && iv.powerLossMs !== undefined && iv.powerLossMs < marksOver,
    );
    if (lost !== undefined)
      return `deletions expected though ${lost.node} lost power before the marks`;
  }
  return undefined;
}
