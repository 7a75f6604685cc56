import { formatDuration } from '../../fields/index.js';
import type { ObjectStoreEvent } from '../../runtime/index.js';
import { Failures } from '../violations.js';
import type { CheckResult, RunEvent } from '../workload.js';
import type { CutBlock } from './block_disk.js';

const ULID = '[0-9A-HJKMNP-TV-Z]{26}';
/** `<tenant>/<block>/…`: an object of a block. */
const BLOCK_OBJECT = new RegExp(`^([^/]+)/(${ULID})/(.+)$`);
/** Where the cleaner and the compactor put deletion marks: in the block, and the global copy. */
const DELETION_MARK = new RegExp(
  `^([^/]+)/(?:(${ULID})/deletion-mark\\.json|markers/(${ULID})-deletion-mark\\.json)$`,
);

function rel(epochMs: number, t: number | undefined): string {
  return t === undefined ? 'never' : `+${formatDuration(Math.max(0, t - epochMs))}`;
}

/** A cut block's own events: its cut, and its local deletion if any. */
function blockEvents(b: CutBlock): RunEvent[] {
  const what = `block ${b.ulid} of ${b.tenant}`;
  const out: RunEvent[] = [{ at: b.cutAt, node: b.node, kind: 'block.cut', detail: what }];
  if (b.deletedAt !== undefined)
    out.push({
      at: b.deletedAt,
      node: b.node,
      kind: 'block.deleted',
      detail: `${what} deleted locally`,
    });
  return out;
}

/** When each block's meta.json (uploaded last, so the block is complete) first reached the bucket. */
export function blocksInBucket(history: readonly ObjectStoreEvent[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const e of history) {
    if (e.op !== 'upload') continue;
    const m = BLOCK_OBJECT.exec(e.name);
    if (m === null || m[3] !== 'meta.json') continue;
    const key = `${m[1]}/${m[2]}`;
    if (!out.has(key)) out.set(key, e.at);
  }
  return out;
}

export interface BlocksShippedInput {
  blocks: readonly CutBlock[];
  /** `<tenant>/<ulid>` → when its meta.json reached the bucket (ingesters' and compactors' blocks). */
  shippedAt: ReadonlyMap<string, number>;
  /**
   * `<tenant>/<ulid>` of the blocks in the bucket the compactor made (their meta.json says
   * so): every other block there must be one an ingester cut.
   */
  compacted: ReadonlySet<string>;
  /** Whether the block directory is still on the node's disk (page cache) at the end. */
  onDisk: (b: CutBlock) => boolean;
  /** Power losses of a node (absolute times). */
  powerLosses: (node: string) => readonly number[];
  quietAtMs: number;
  withinMs: number;
  /** Blocks whose deadline falls after this are not judged (the run's end). */
  judgeUntilMs: number;
  /** A scenario must cut at least this many blocks to exercise shipping. */
  minBlocks: number;
  epochMs: number;
}

/**
 * Every block an ingester cut reaches the bucket (its meta.json, uploaded last) within
 * `within` of when it was cut or faults healed, whichever is later; and no ingester deletes
 * a block before it is in the bucket. A block that vanished from its node's disk because a
 * power loss undid its creation (the directory entry was not yet durable) is excused: its
 * samples are judged by `acked_readable_exactly_once`. Every block in the bucket is either
 * one the ingesters cut or one the compactor made from them.
 */
export function checkBlocksShipped(input: BlocksShippedInput): CheckResult {
  const { epochMs } = input;
  const failures = new Failures();
  let judged = 0;
  let deletedAfterShipping = 0;
  let lostToPower = 0;
  const nodes = new Set(input.blocks.map((b) => b.node));
  for (const b of input.blocks) {
    const name = `block ${b.ulid} of ${b.tenant} cut by ${b.node} at ${rel(epochMs, b.cutAt)}`;
    const shipped = input.shippedAt.get(`${b.tenant}/${b.ulid}`);
    if (b.deletedAt !== undefined && (shipped === undefined || b.deletedAt < shipped)) {
      failures.add(
        `${name} was deleted locally at ${rel(epochMs, b.deletedAt)} before it was in the bucket (shipped ${rel(epochMs, shipped)}): its samples are gone`,
        { observedAt: b.deletedAt, events: blockEvents(b), nodes: [b.node] },
      );
      continue;
    }
    if (b.deletedAt !== undefined) deletedAfterShipping++;
    if (shipped === undefined && b.deletedAt === undefined && !input.onDisk(b)) {
      if (input.powerLosses(b.node).some((p) => p > b.cutAt)) {
        lostToPower++;
        continue;
      }
      failures.add(`${name} vanished from the disk without a deletion or a power loss`, {
        events: blockEvents(b),
        nodes: [b.node],
      });
      continue;
    }
    const deadline = Math.max(b.cutAt, input.quietAtMs) + input.withinMs;
    if (deadline > input.judgeUntilMs) continue;
    judged++;
    if (shipped === undefined || shipped > deadline)
      failures.add(
        `${name} was not in the bucket by ${rel(epochMs, deadline)} (shipped ${rel(epochMs, shipped)})`,
        { observedAt: deadline, events: blockEvents(b), nodes: [b.node] },
      );
  }
  const cut = new Set(input.blocks.map((b) => `${b.tenant}/${b.ulid}`));
  for (const [key, at] of input.shippedAt)
    if (!cut.has(key) && !input.compacted.has(key))
      failures.add(
        `block ${key} reached the bucket at ${rel(epochMs, at)}, but no ingester cut it and no compactor made it`,
        {
          observedAt: at,
          events: [{ at, node: 'objstore', kind: 'block.uploaded', detail: `block ${key}` }],
        },
      );
  const shippedCut = [...cut].filter((k) => input.shippedAt.has(k)).length;
  if (input.blocks.length < input.minBlocks)
    failures.add(
      `the ingesters cut ${input.blocks.length} block(s), fewer than ${input.minBlocks}: the scenario does not exercise shipping`,
    );
  return failures.verdict(
    'blocks_shipped',
    'block(s) not shipped as they should',
    `${input.blocks.length} block(s) cut by ${nodes.size} ingester(s), ${shippedCut} of them in the bucket (and ${input.compacted.size} compacted block(s)); ${judged} judged, each in the bucket within ${formatDuration(input.withinMs)} of its cut or of faults healing at ${rel(epochMs, input.quietAtMs)}; ` +
      `${deletedAfterShipping} deleted locally after shipping, ${lostToPower} undone by a power loss before shipping`,
  );
}

interface Mark {
  /** The mark's own deletion_time (unix seconds → ms). */
  deletionTimeMs: number;
  uploadedAt: number;
}

/**
 * No object of a block is deleted from the bucket before the block's deletion mark is
 * `deletion_delay` old: the mark (either copy) must have been uploaded before the delete,
 * and the delete must happen at least `deletion_delay` after the mark's deletion_time.
 * Visit markers of Cortex's shuffle-sharding compactor are not block data and may go
 * without a mark, and so may every object of a partial block (its meta.json never reached
 * the bucket: no reader ever loaded it, so there is nobody for the delay to protect) — an
 * uploader removing its failed upload, or the cleaner deleting an abandoned partial block.
 */
export function checkDeletionDelayHonoured(input: {
  history: readonly ObjectStoreEvent[];
  deletionDelayMs: number;
  /** Fail when nothing was deleted (the scenario does not exercise deletion). */
  expectDeletions: boolean;
  epochMs: number;
}): CheckResult {
  const { epochMs, deletionDelayMs } = input;
  const failures = new Failures();
  const marks = new Map<string, Mark>();
  const blocks = new Set<string>();
  /** Blocks whose meta.json reached the bucket at some point (complete uploads). */
  const completed = new Set<string>();
  let deletes = 0;
  let abortedUploadDeletes = 0;
  const decoder = new TextDecoder();
  for (const e of input.history) {
    const mark = DELETION_MARK.exec(e.name);
    if (e.op === 'upload' && mark !== null) {
      const key = `${mark[1]}/${mark[2] ?? mark[3]}`;
      let deletionTime: unknown;
      try {
        deletionTime = (JSON.parse(decoder.decode(e.content)) as { deletion_time?: unknown })
          .deletion_time;
      } catch {
        deletionTime = undefined;
      }
      if (typeof deletionTime !== 'number') {
        failures.add(`${e.name} uploaded at ${rel(epochMs, e.at)} has no numeric deletion_time`, {
          observedAt: e.at,
          events: [bucketEvent(e)],
        });
        continue;
      }
      const prev = marks.get(key);
      // The earliest copy counts: a rewrite must not make a premature delete look fine.
      if (prev === undefined || deletionTime * 1000 < prev.deletionTimeMs)
        marks.set(key, { deletionTimeMs: deletionTime * 1000, uploadedAt: e.at });
      continue;
    }
    const obj = BLOCK_OBJECT.exec(e.name);
    if (e.op === 'upload' && obj?.[3] === 'meta.json') completed.add(`${obj[1]}/${obj[2]}`);
    if (e.op !== 'delete' || !e.existed) continue;
    const key =
      obj !== null ? `${obj[1]}/${obj[2]}` : mark !== null ? `${mark[1]}/${mark[3]}` : undefined;
    if (key === undefined || obj?.[3] === 'visit-mark.json') continue;
    if (!completed.has(key)) {
      abortedUploadDeletes++;
      continue;
    }
    deletes++;
    blocks.add(key);
    const m = marks.get(key);
    if (m === undefined) {
      failures.add(`${e.name} was deleted at ${rel(epochMs, e.at)} without a deletion mark`, {
        observedAt: e.at,
        events: [bucketEvent(e)],
      });
      continue;
    }
    const due = m.deletionTimeMs + deletionDelayMs;
    if (e.at < due)
      failures.add(
        `${e.name} was deleted at ${rel(epochMs, e.at)}, before its deletion mark (deletion_time ${rel(epochMs, m.deletionTimeMs)}, uploaded ${rel(epochMs, m.uploadedAt)}) was ${formatDuration(deletionDelayMs)} old (due ${rel(epochMs, due)})`,
        {
          observedAt: e.at,
          events: [
            {
              at: m.uploadedAt,
              node: 'objstore',
              kind: 'mark.uploaded',
              detail: `deletion mark of ${key}`,
            },
            bucketEvent(e),
          ],
        },
      );
  }
  if (input.expectDeletions && deletes === 0)
    failures.add(
      'no block object was deleted from the bucket: the scenario does not exercise deletion',
    );
  return failures.verdict(
    'deletion_delay_honoured',
    'violation(s) of the deletion delay',
    (deletes === 0
      ? `no block object was deleted from the bucket (${marks.size} block(s) marked for deletion)`
      : `${deletes} deletes of ${blocks.size} block(s), each at least ${formatDuration(deletionDelayMs)} after the block's deletion mark`) +
      (abortedUploadDeletes === 0
        ? ''
        : `; ${abortedUploadDeletes} object(s) of partial blocks (uploads that never completed) removed`),
  );
}

/** A bucket call as a report event (on the `objstore` lane; `by` names the caller). */
function bucketEvent(e: ObjectStoreEvent): RunEvent {
  return {
    at: e.at,
    node: 'objstore',
    kind: e.op === 'upload' ? 'object.uploaded' : 'object.deleted',
    detail: `${e.name}${e.by === undefined ? '' : ` by ${e.by}`}`,
  };
}
