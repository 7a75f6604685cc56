import type { RandomStream } from '../../src/runtime/index.js';
import type { Episode, EpisodeBounds } from './episodes.js';

/** A scenario file as plain YAML data (what the family edits before it is parsed). */
export type ScenarioDoc = Record<string, unknown>;

/** What a family drew for one profile: the edits are already applied to the document. */
export interface DerivedMix {
  /** One short phrase per drawn choice, e.g. `4 ingesters`, `duplication 2.1%`. */
  summary: string[];
  /** The node faults drawn, one at a time (checked against the promise by the tests). */
  episodes: Episode[];
  /** The bounds the episodes were drawn in. */
  bounds: EpisodeBounds;
  /**
   * Further `schedule:` entries beside the episodes' (faults of other nodes and services,
   * e.g. object-store weather); the parser orders the schedule by time.
   */
  schedule?: unknown[];
}

/**
 * A swarm family: a built-in scenario plus bounds within which each swarm seed draws its own
 * topology size, fault kinds and rates. `promise` states what the faults never exceed: a
 * swarm failure is a broken promise of the system, never a fault beyond what it claims to
 * survive.
 */
export interface SwarmFamily {
  name: string;
  /** The built-in scenario (`scenarios/<base>.yaml`) the family starts from. */
  base: string;
  promise: string;
  /**
   * False keeps the family out of a swarm run without `--scenario-family` (its seeds cost
   * too much for the default swarm's time budget); `--scenario-family <name>` still runs it.
   */
  inDefaultSwarm?: boolean;
  /** Edits `doc` (the base scenario's data) for one profile, drawing from `r`. */
  derive(doc: ScenarioDoc, r: RandomStream): DerivedMix;
}

/** The workload section of a document, for families that edit it. */
export function workloadOf(doc: ScenarioDoc): Record<string, unknown> {
  const w = doc.workload;
  if (typeof w !== 'object' || w === null) throw new Error('base scenario has no workload');
  return w as Record<string, unknown>;
}

/** Nodes named `<prefix>-1..n` running `role`. */
export function numbered(prefix: string, n: number): string[] {
  return Array.from({ length: n }, (_, i) => `${prefix}-${i + 1}`);
}
