import { formatDuration } from '../../fields/index.js';
import type { ObjectStoreEvent } from '../../runtime/index.js';
import { Failures } from '../violations.js';
import type { CheckResult, RunEvent } from '../workload.js';
import {
  BLOCK_OBJECT,
  DELETION_MARK,
  bucketStateAt,
  lastBucketIndexes,
  madeByCompactor,
  type UploadedMeta,
} from './bucket_history.js';

const MAX_LISTED = 10;

function rel(epochMs: number, t: number | undefined): string {
  return t === undefined ? 'never' : `+${formatDuration(Math.max(0, t - epochMs))}`;
}

function verdict(name: string, failures: string[], what: string, ok: string): CheckResult {
  if (failures.length === 0) return { name, verdict: 'pass', detail: ok };
  const shown = failures.slice(0, MAX_LISTED).join('; ');
  const more = failures.length > MAX_LISTED ? `; … (${failures.length} in all)` : '';
  return { name, verdict: 'fail', detail: `${failures.length} ${what}: ${shown}${more}` };
}

function span(m: UploadedMeta, epochMs: number): string {
  return `${m.ulid} [${rel(epochMs, m.meta.minTime)}, ${rel(epochMs, m.meta.maxTime)}) level ${m.meta.compaction.level}`;
}

export interface CompactionConvergedInput {
  history: readonly ObjectStoreEvent[];
  tenants: readonly string[];
  /** The largest of `compactor.block_ranges`. */
  largestRangeMs: number;
  epochMs: number;
  /**
   * Whether a partial block left at the end fails the check: what a crash mid-upload leaves
   * must have been abandoned and deleted by then.
   */
  noPartialBlocks?: boolean;
}

/**
 * Liveness of compaction, judged on the bucket at the end (after the faults healed and the
 * compactors had time): per tenant, the live blocks (meta.json present, no deletion mark)
 * do not overlap; none is a leftover source (its ULID among another live block's
 * compaction sources); none crosses a boundary of the largest range; and every window of the
 * largest range that the planner must have finished (Thanos leaves the newest block out and
 * compacts a range once it ends at or before the start of the newest of the others) holds
 * exactly one block. Each tenant must have at least one compacted block. With
 * `noPartialBlocks`, no block without a meta.json may be left (nothing uploads at the end of
 * a converged run, so a partial block is debris nobody cleaned).
 */
export function checkCompactionConverged(input: CompactionConvergedInput): CheckResult {
  const { epochMs, largestRangeMs: R } = input;
  const state = bucketStateAt(input.history);
  const failures: string[] = [];
  const summary: string[] = [];
  for (const tenant of input.tenants) {
    const live = [...state.blocks.entries()]
      .filter(([key, m]) => m.tenant === tenant && !state.marked.has(key))
      .map(([, m]) => m)
      .sort((a, b) => a.meta.minTime - b.meta.minTime || a.meta.maxTime - b.meta.maxTime);
    if (live.length === 0) {
      failures.push(`${tenant}: no live block in the bucket`);
      continue;
    }
    if (!live.some((m) => madeByCompactor(m.meta)))
      failures.push(
        `${tenant}: no compacted block in the bucket (the compactors never compacted it)`,
      );
    for (let i = 1; i < live.length; i++) {
      const prev = live[i - 1]!;
      const cur = live[i]!;
      if (cur.meta.minTime < prev.meta.maxTime)
        failures.push(`${tenant}: blocks ${span(prev, epochMs)} and ${span(cur, epochMs)} overlap`);
    }
    const sources = new Map<string, string>();
    for (const m of live)
      for (const s of m.meta.compaction.sources) if (s !== m.ulid) sources.set(s, m.ulid);
    for (const m of live) {
      const by = sources.get(m.ulid);
      if (by !== undefined)
        failures.push(
          `${tenant}: block ${span(m, epochMs)} is a source of live block ${by} but was never marked for deletion`,
        );
      if (Math.floor(m.meta.minTime / R) !== Math.floor((m.meta.maxTime - 1) / R))
        failures.push(
          `${tenant}: block ${span(m, epochMs)} crosses a boundary of the largest range ${formatDuration(R)}`,
        );
    }
    // Thanos's planner leaves the newest block out, then compacts a range once it ends at or
    // before the start of the newest of the rest: the ranges it must have finished.
    const highTime =
      live.length < 2 ? Number.NEGATIVE_INFINITY : live[live.length - 2]!.meta.minTime;
    const windows = new Map<number, UploadedMeta[]>();
    for (const m of live) {
      const w = Math.floor(m.meta.minTime / R);
      if ((w + 1) * R > highTime) continue;
      windows.set(w, [...(windows.get(w) ?? []), m]);
    }
    for (const [w, blocks] of windows)
      if (blocks.length > 1)
        failures.push(
          `${tenant}: the range [${rel(epochMs, w * R)}, ${rel(epochMs, (w + 1) * R)}) holds ${blocks.length} blocks, not one: ${blocks.map((b) => span(b, epochMs)).join(', ')}`,
        );
    const levels = live.map((m) => m.meta.compaction.level).join(',');
    summary.push(
      `${tenant}: ${live.length} live block(s) (levels ${levels}), ${windows.size} whole ${formatDuration(R)} range(s)`,
    );
  }
  if (input.noPartialBlocks === true)
    for (const key of [...state.partial].sort())
      failures.push(`${key}: a partial block (objects but no meta.json) is still in the bucket`);
  return verdict(
    'compaction_converged',
    failures,
    'problem(s) with the compacted bucket',
    `${summary.join('; ')}; ${state.partial.size} partial block(s) left (no meta.json)`,
  );
}

/**
 * A compactor marks a block for deletion only once another complete block (meta.json in the
 * bucket) holds all its sources: the output of the compaction that replaced it, or the block
 * a duplicate is a subset of. Marks of blocks without a meta.json (partial blocks) and marks
 * written by other nodes (an operator) are not judged.
 */
export function checkSourcesCoveredBeforeMarked(input: {
  history: readonly ObjectStoreEvent[];
  compactors: ReadonlySet<string>;
  epochMs: number;
}): CheckResult {
  const { epochMs } = input;
  const failures = new Failures();
  const metas = new Map<string, UploadedMeta>();
  const present = new Set<string>();
  const judged = new Set<string>();
  let marks = 0;
  const decoder = new TextDecoder();
  for (const e of input.history) {
    const obj = BLOCK_OBJECT.exec(e.name);
    if (obj !== null && obj[3] === 'meta.json') {
      const key = `${obj[1]}/${obj[2]}`;
      if (e.op === 'delete') present.delete(key);
      else if (e.content !== undefined) {
        try {
          const meta = JSON.parse(decoder.decode(e.content)) as UploadedMeta['meta'];
          metas.set(key, { tenant: obj[1]!, ulid: obj[2]!, meta, uploadedAt: e.at, by: e.by });
          present.add(key);
        } catch {
          // an unreadable meta.json covers nothing
        }
      }
      continue;
    }
    const mark = DELETION_MARK.exec(e.name);
    if (mark === null || e.op !== 'upload' || e.by === undefined || !input.compactors.has(e.by))
      continue;
    const key = `${mark[1]}/${mark[2] ?? mark[3]}`;
    const marked = metas.get(key);
    if (marked === undefined || judged.has(key)) continue;
    judged.add(key);
    marks++;
    const needed = marked.meta.compaction.sources;
    const cover = [...present].find((k) => {
      if (k === key) return false;
      const m = metas.get(k);
      return (
        m !== undefined &&
        m.tenant === marked.tenant &&
        needed.every((s) => m.meta.compaction.sources.includes(s))
      );
    });
    if (cover === undefined)
      failures.add(
        `${e.by} marked ${marked.tenant}/${span(marked, epochMs)} for deletion at ${rel(epochMs, e.at)} while no complete block held its sources ${needed.join(',')}`,
        {
          observedAt: e.at,
          events: [
            {
              at: marked.uploadedAt,
              node: marked.by ?? 'objstore',
              kind: 'block.uploaded',
              detail: `block ${marked.ulid} of ${marked.tenant}`,
            },
            bucketWrite(e),
          ],
          nodes: [e.by],
        },
      );
  }
  return failures.verdict(
    'sources_covered_before_marked',
    'block(s) marked for deletion before their data was elsewhere',
    `${marks} block(s) marked for deletion by the compactors, each after a complete block held all its sources`,
  );
}

/** A span of time around a ring change during which two compactors may both work on a tenant. */
export interface TransitionWindow {
  from: number;
  until: number;
  why: string;
}

/**
 * Outside ring-transition windows at most one compactor writes to a tenant (blocks, marks,
 * the bucket index): between two windows, every write under `<tenant>/` by a compactor node
 * comes from the same node (the default sharding strategy: RF 1 ownership).
 */
export function checkOneCompactorPerTenant(input: {
  history: readonly ObjectStoreEvent[];
  compactors: ReadonlySet<string>;
  tenants: readonly string[];
  windows: readonly TransitionWindow[];
  epochMs: number;
  endMs: number;
}): CheckResult {
  const { epochMs } = input;
  const windows = [...input.windows].sort((a, b) => a.from - b.from);
  const inWindow = (t: number): boolean => windows.some((w) => t >= w.from && t <= w.until);
  /** The stable period a time falls in: the end of the last window before it. */
  const periodOf = (t: number): number =>
    windows.filter((w) => w.until < t).reduce((p, w) => Math.max(p, w.until), epochMs);
  const failures = new Failures();
  const writers = new Map<string, Map<string, ObjectStoreEvent>>();
  let judged = 0;
  const tenants = new Set(input.tenants);
  for (const e of input.history) {
    if (e.by === undefined || !input.compactors.has(e.by) || inWindow(e.at)) continue;
    const tenant = e.name.split('/')[0] ?? '';
    if (!tenants.has(tenant)) continue;
    judged++;
    const key = `${tenant}@${periodOf(e.at)}`;
    let byNode = writers.get(key);
    if (byNode === undefined) {
      byNode = new Map();
      writers.set(key, byNode);
    }
    if (!byNode.has(e.by)) byNode.set(e.by, e);
  }
  for (const [key, byNode] of writers) {
    if (byNode.size < 2) continue;
    const [tenant, from] = key.split('@') as [string, string];
    const next = windows.find((w) => w.from > Number(from));
    const who = [...byNode.values()]
      .map((e) => `${e.by} (${e.op} ${e.name} at ${rel(epochMs, e.at)})`)
      .join(' and ');
    // Observed at the first write of the second node in the period.
    const firsts = [...byNode.values()];
    failures.add(
      `${tenant}: written by ${who} between ${rel(epochMs, Number(from))} and ${rel(epochMs, next?.from ?? input.endMs)}, outside any ring transition`,
      {
        observedAt: Math.max(...firsts.slice(0, 2).map((e) => e.at)),
        events: firsts.map(bucketWrite),
        nodes: firsts.map((e) => e.by ?? 'objstore'),
      },
    );
  }
  return failures.verdict(
    'one_compactor_per_tenant',
    'tenant(s) worked on by two compactors at once',
    `${judged} compactor writes outside ${windows.length} ring-transition window(s), each tenant's from one compactor per stable period`,
  );
}

/**
 * After the final cleanup the bucket index of each tenant lists exactly the blocks with a
 * meta.json in the bucket and the deletion marks of those blocks. The bucket must have
 * stopped changing for the tenant `settleMs` before the last index write (a listing lags by
 * the store's list delay), else there was no final cleanup to judge.
 */
export function checkBucketIndexMatchesListing(input: {
  history: readonly ObjectStoreEvent[];
  tenants: readonly string[];
  settleMs: number;
  epochMs: number;
}): CheckResult {
  const { epochMs } = input;
  const failures: string[] = [];
  const indexes = lastBucketIndexes(input.history);
  const state = bucketStateAt(input.history);
  const lines: string[] = [];
  for (const tenant of input.tenants) {
    const last = indexes.get(tenant);
    if (last === undefined) {
      failures.push(`${tenant}: no bucket index in the bucket at the end`);
      continue;
    }
    if (last.index instanceof Error) {
      failures.push(`${tenant}: the last bucket index does not decode: ${last.index.message}`);
      continue;
    }
    const changed = input.history.find(
      (e) =>
        e.at > last.at - input.settleMs &&
        e.name.startsWith(`${tenant}/`) &&
        (BLOCK_OBJECT.exec(e.name)?.[3] === 'meta.json' || DELETION_MARK.test(e.name)),
    );
    if (changed !== undefined) {
      failures.push(
        `${tenant}: the bucket changed (${changed.op} ${changed.name} at ${rel(epochMs, changed.at)}) too close to or after the last index write at ${rel(epochMs, last.at)}: no final cleanup to judge`,
      );
      continue;
    }
    const blocks = [...state.blocks.values()].filter((m) => m.tenant === tenant).map((m) => m.ulid);
    const indexed = last.index.blocks.map((b) => b.block_id);
    const marks = blocks.filter((b) => state.marked.has(`${tenant}/${b}`));
    const indexedMarks = last.index.block_deletion_marks.map((m) => m.block_id);
    const diff = (what: string, want: string[], got: string[]): void => {
      const missing = want.filter((b) => !got.includes(b));
      const extra = got.filter((b) => !want.includes(b));
      if (missing.length + extra.length > 0)
        failures.push(
          `${tenant}: the index written at ${rel(epochMs, last.at)} by ${last.by ?? '?'} ${missing.length > 0 ? `misses ${what} ${missing.join(',')}` : ''}${missing.length > 0 && extra.length > 0 ? ' and ' : ''}${extra.length > 0 ? `lists ${what} not in the bucket ${extra.join(',')}` : ''}`,
        );
    };
    diff('blocks', blocks, indexed);
    diff('deletion marks', marks, indexedMarks);
    lines.push(`${tenant}: ${indexed.length} block(s), ${indexedMarks.length} mark(s)`);
  }
  return verdict(
    'bucket_index_matches_listing',
    failures,
    'bucket index(es) differing from the bucket',
    `the last index of each tenant equals the bucket's content: ${lines.join('; ')}`,
  );
}

/** A compactor's bucket call as a report event, on the compactor's lane. */
function bucketWrite(e: ObjectStoreEvent): RunEvent {
  return {
    at: e.at,
    node: e.by ?? 'objstore',
    kind: e.op === 'upload' ? 'object.uploaded' : 'object.deleted',
    detail: e.name,
  };
}
