/**
 * Block visit markers (Cortex's block_visit_marker.go): how compactors of one tenant's shuffle
 * shard keep off each other's groups. A compactor that picks a group writes
 * `<tenant>/<block>/visit-mark.json` = `{"compactorID","visitTime","version":1}` (visitTime in
 * Unix seconds) into each of its blocks, and rewrites them every update interval while it
 * works on the tenant. A marker younger than the timeout written by another compactor keeps a
 * group off limits; an older one is stale and the group may be taken over.
 *
 * Markers are never removed or completed: the compacted sources are marked for deletion and
 * drop out of every later sync, and the cleaner deletes a marker with its block (or a block
 * directory holding nothing but a marker). Failing to write a marker is counted and logged,
 * never fatal; the planner's re-read catches a group another compactor took meanwhile.
 */
import type { Counter } from 'prom-client';
import { getIfExists } from '../bucket/index.js';
import {
  registeredCounter,
  type Bucket,
  type Clock,
  type Logger,
  type MetricsRegistry,
  type Timer,
} from '../runtime/index.js';
import { BLOCK_VISIT_MARKER_FILE } from './cleaner_blocks.js';
import { errorMessage } from './compaction_errors.js';

/** The only visit-mark.json version Cortex reads. */
export const VISIT_MARKER_VERSION = 1;

export interface BlockVisitMarker {
  /** The ring instance ID of the compactor that visited the block. */
  compactorID: string;
  /** Unix seconds of the last visit (write). */
  visitTime: number;
  version: number;
}

export function blockVisitMarkerPath(tenant: string, block: string): string {
  return `${tenant}/${block}/${BLOCK_VISIT_MARKER_FILE}`;
}

/** Whether the marker was written less than `timeoutMs` ago (Cortex's isVisited). */
export function isVisitFresh(marker: BlockVisitMarker, nowMs: number, timeoutMs: number): boolean {
  return nowMs < marker.visitTime * 1000 + timeoutMs;
}

/** The failure counters Cortex exports for visit markers. */
export interface VisitMarkerMetrics {
  readFailed: Counter;
  writeFailed: Counter;
}

export function visitMarkerMetrics(registry: MetricsRegistry): VisitMarkerMetrics {
  return {
    readFailed: registeredCounter(
      registry,
      'cortex_compactor_block_visit_marker_read_failed',
      'Number of block visit marker file failed to be read.',
    ),
    writeFailed: registeredCounter(
      registry,
      'cortex_compactor_block_visit_marker_write_failed',
      'Number of block visit marker file failed to be written.',
    ),
  };
}

/** The block's marker; undefined when it has none; throws when it cannot be read or parsed. */
export async function readBlockVisitMarker(
  bucket: Bucket,
  tenant: string,
  block: string,
  metrics: VisitMarkerMetrics,
): Promise<BlockVisitMarker | undefined> {
  const path = blockVisitMarkerPath(tenant, block);
  let raw: Uint8Array | undefined;
  try {
    raw = await getIfExists(bucket, path);
  } catch (err) {
    metrics.readFailed.inc();
    throw new Error(`get block visit marker file: ${path}: ${errorMessage(err)}`, { cause: err });
  }
  if (raw === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(raw));
  } catch (err) {
    metrics.readFailed.inc();
    throw new Error(`unmarshal block visit marker JSON: ${path}: ${errorMessage(err)}`, {
      cause: err,
    });
  }
  const m = parsed as Partial<BlockVisitMarker> | null;
  if (
    m === null ||
    typeof m !== 'object' ||
    typeof m.compactorID !== 'string' ||
    typeof m.visitTime !== 'number' ||
    typeof m.version !== 'number'
  ) {
    metrics.readFailed.inc();
    throw new Error(`unmarshal block visit marker JSON: ${path}: unexpected content`);
  }
  if (m.version !== VISIT_MARKER_VERSION) {
    throw new Error(
      `unexpected block visit mark file version ${m.version}, expected ${VISIT_MARKER_VERSION}`,
    );
  }
  return { compactorID: m.compactorID, visitTime: m.visitTime, version: m.version };
}

export interface VisitMarkerDeps {
  bucket: Bucket;
  clock: Clock;
  logger: Logger;
  metrics: VisitMarkerMetrics;
}

/** Writes this compactor's marker, stamped now, into each block (Cortex's markBlocksVisited). */
export async function markBlocksVisited(
  tenant: string,
  blocks: readonly string[],
  compactorID: string,
  deps: VisitMarkerDeps,
): Promise<void> {
  // Go's json.Marshal field order, so the objects are byte-identical to Cortex's.
  const marker: BlockVisitMarker = {
    compactorID,
    visitTime: Math.floor(deps.clock.now() / 1000),
    version: VISIT_MARKER_VERSION,
  };
  const body = new TextEncoder().encode(JSON.stringify(marker));
  for (const block of blocks) {
    try {
      await deps.bucket.upload(blockVisitMarkerPath(tenant, block), body);
    } catch (err) {
      deps.metrics.writeFailed.inc();
      deps.logger.error('unable to upsert visit marker file content for block', {
        blockID: block,
        err: errorMessage(err),
      });
    }
  }
}

/**
 * Keeps the markers of the blocks being compacted fresh (Cortex's markBlocksVisitedHeartBeat):
 * one write at once, then one every `intervalMs` on the Env clock, until stopped.
 */
export class VisitMarkerHeartbeat {
  private timer: Timer | undefined;

  constructor(
    private readonly tenant: string,
    private readonly blocks: readonly string[],
    private readonly compactorID: string,
    private readonly intervalMs: number,
    private readonly deps: VisitMarkerDeps,
  ) {
    if (!(intervalMs > 0)) {
      throw new RangeError(`visit marker update interval must be > 0, got ${intervalMs}ms`);
    }
  }

  /** Writes the markers now and starts the periodic rewrite. */
  async start(): Promise<void> {
    this.deps.logger.info(`start heart beat for blocks: ${this.blocks.join(',')}`);
    const beat = (): Promise<void> =>
      markBlocksVisited(this.tenant, this.blocks, this.compactorID, this.deps);
    this.timer = this.deps.clock.every(this.intervalMs, beat);
    await beat();
  }

  stop(): void {
    if (this.timer === undefined) return;
    this.timer.cancel();
    this.timer = undefined;
    this.deps.logger.info(`stop heart beat for blocks: ${this.blocks.join(',')}`);
  }
}
