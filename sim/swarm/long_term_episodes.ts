/** The `long-term` family's ingester episodes and their schedule entries. */

import type { RandomStream } from '../../src/runtime/index.js';
import { chance, drawInt, ms, pickOne } from './draw.js';
import {
  LT_FAULTS_FROM_MS,
  LT_FAULTS_UNTIL_MS,
  type LtIngesterKind,
  type LtWindow,
} from './long_term_promise.js';

const S = 1_000;

export interface IngesterEpisode {
  kind: LtIngesterKind;
  node: string;
  startMs: number;
  endMs: number;
}

/** The longest bucket cut-off of an ingester (the retention allows for it). */
export const CUTOFF_MAX_MS = 90 * S;

/**
 * Ingester episodes one at a time. A power loss (alone, or while cut off from the bucket
 * with a block it could not ship yet) hits only the one ingester disturbed so far, and with
 * operator deletions only their victim; before the last mark every episode hits the victim,
 * so no sample it lost by the operator was missed by another replica. Cut-offs end with a
 * `heal`, which would end an object-store window too: they never overlap one.
 */
export function drawIngesterEpisodes(
  r: RandomStream,
  o: {
    kinds: readonly ('crash' | 'power_loss' | 'stop' | 'cutoff')[];
    ingesters: readonly string[];
    victim: string | undefined;
    marksOverMs: number;
    windows: readonly LtWindow[];
  },
): IngesterEpisode[] {
  const out: IngesterEpisode[] = [];
  const disturbed = new Set<string>();
  const gap = (): number => drawInt(r, [20, 60]) * S;
  let t = LT_FAULTS_FROM_MS + gap();
  for (;;) {
    let kind: LtIngesterKind = pickOne(r, o.kinds);
    let node = pickOne(r, o.ingesters);
    if (o.victim !== undefined && t < o.marksOverMs) node = o.victim;
    const powerLossOk = (n: string): boolean =>
      [...disturbed].every((d) => d === n) && (o.victim === undefined || n === o.victim);
    if (kind === 'power_loss' && !powerLossOk(node)) {
      const only = disturbed.size === 1 ? [...disturbed][0]! : undefined;
      if (only !== undefined && powerLossOk(only)) node = only;
      else kind = 'crash';
    }
    if (kind === 'cutoff' && o.kinds.includes('power_loss') && powerLossOk(node) && chance(r, 0.5))
      kind = 'cutoff_power_loss';
    const lasts =
      kind === 'crash'
        ? drawInt(r, [5, 40]) * S
        : kind === 'power_loss'
          ? drawInt(r, [5, 20]) * S
          : kind === 'stop'
            ? drawInt(r, [10, 30]) * S
            : drawInt(r, [30, CUTOFF_MAX_MS / S]) * S;
    if (kind === 'cutoff' || kind === 'cutoff_power_loss') {
      const clash = o.windows.find((w) => t <= w.endMs && t + lasts >= w.startMs);
      if (clash !== undefined) {
        t = clash.endMs + gap();
        continue;
      }
    }
    if (t + lasts > LT_FAULTS_UNTIL_MS) break;
    out.push({ kind, node, startMs: t, endMs: t + lasts });
    disturbed.add(node);
    t += lasts + gap();
  }
  return out;
}

export function ingesterSchedule(e: IngesterEpisode): unknown[] {
  const at = (t: number): string => ms(t);
  switch (e.kind) {
    case 'crash':
    case 'power_loss':
      return []; // the shared episode schedule writes these
    case 'stop':
      return [
        { at: at(e.startMs), stop: e.node },
        { at: at(e.endMs), start: e.node },
      ];
    case 'cutoff':
      return [
        { at: at(e.startMs), partition: [[e.node], ['objstore']] },
        { at: at(e.endMs), heal: true },
      ];
    case 'cutoff_power_loss':
      // As in the base: cut off long enough to cut a block it cannot ship, then the power
      // goes, the bucket comes back, the ingester restarts and ships what survived.
      return [
        { at: at(e.startMs), partition: [[e.node], ['objstore']] },
        { at: at(e.endMs - 10 * S), power_loss: e.node },
        { at: at(e.endMs - 5 * S), heal: true },
        { at: at(e.endMs), restart: e.node },
      ];
  }
}
