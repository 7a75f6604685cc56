import { stringify, parse } from 'yaml';
import { createSeededRandom } from '../../src/runtime/index.js';
import { ScenarioError } from '../fields/index.js';
import { builtinScenarioPath, readHostTextFile } from '../kernel/index.js';
import { parseScenario, type Scenario } from '../scenario/index.js';
import { episodeSchedule } from './episodes.js';
import type { DerivedMix, ScenarioDoc, SwarmFamily } from './family.js';
import { ingesterCrashFamily } from './ingester_crash_family.js';
import { lateSenderFamily } from './late_sender_family.js';
import { longTermFamily } from './long_term_family.js';
import { scaleOutFamily } from './scale_out_family.js';

/** Every swarm family; a swarm without `--scenario-family` cycles through the default ones. */
export const SWARM_FAMILIES: readonly SwarmFamily[] = [
  ingesterCrashFamily,
  lateSenderFamily,
  scaleOutFamily,
  longTermFamily,
];

/** The families a swarm without `--scenario-family` cycles through (`inDefaultSwarm` not false). */
export function defaultSwarmFamilies(): SwarmFamily[] {
  return SWARM_FAMILIES.filter((f) => f.inDefaultSwarm !== false);
}

/**
 * A swarm profile: which family and which profile seed drew the fault mix. It prints as
 * `<family>:<seed>` (the `--swarm-profile` value); deriving it again on the same commit
 * replays the same mix, and the run's own `--seed` is independent of it (same mix, another
 * interleaving).
 */
export interface SwarmProfile {
  family: string;
  seed: number;
}

export function formatSwarmProfile(p: SwarmProfile): string {
  return `${p.family}:${p.seed}`;
}

export function parseSwarmProfile(text: string): SwarmProfile {
  const m = /^([a-z][a-z0-9-]*):(\d+)$/.exec(text);
  if (m === null || !Number.isSafeInteger(Number(m[2])))
    throw new ScenarioError(
      `invalid swarm profile ${JSON.stringify(text)}: expected <family>:<seed>, e.g. ingester-crash:17`,
    );
  findSwarmFamily(m[1]!);
  return { family: m[1]!, seed: Number(m[2]) };
}

export function findSwarmFamily(name: string): SwarmFamily {
  const f = SWARM_FAMILIES.find((x) => x.name === name);
  if (f === undefined)
    throw new ScenarioError(
      `unknown swarm family ${JSON.stringify(name)} (known: ${SWARM_FAMILIES.map((x) => x.name).join(', ')})`,
    );
  return f;
}

export interface DerivedSwarmScenario {
  scenario: Scenario;
  mix: DerivedMix;
  /** The generated scenario file (what `scenario` was parsed from). */
  yaml: string;
}

/**
 * Builds the scenario of a profile: the family's base scenario file, edited by the family
 * with draws from the profile's own random stream, written back as YAML and parsed by the
 * same parser as any scenario file, so a derived scenario is validated exactly like a
 * hand-written one.
 */
export function deriveSwarmScenario(profile: SwarmProfile): DerivedSwarmScenario {
  const family = findSwarmFamily(profile.family);
  const path = builtinScenarioPath(family.base);
  if (path === undefined)
    throw new ScenarioError(
      `swarm family ${family.name}: built-in scenario ${family.base} not found`,
    );
  const doc = parse(readHostTextFile(path)) as ScenarioDoc;
  const r = createSeededRandom(`swarm:${formatSwarmProfile(profile)}`).stream('profile');
  const mix = family.derive(doc, r);
  doc.schedule = [
    ...episodeSchedule(mix.episodes, mix.bounds.distributor),
    ...(mix.schedule ?? []),
  ];
  doc.seed = profile.seed;
  doc.description = `swarm profile ${formatSwarmProfile(profile)}: ${mix.summary.join('; ')}`;
  const yaml = stringify(doc, { lineWidth: 0 });
  const scenario = parseScenario(
    yaml,
    family.base,
    `<scenario of swarm profile ${formatSwarmProfile(profile)}>`,
  );
  return { scenario, mix, yaml };
}

/** The command that replays one swarm run exactly. */
export function swarmReplayCommand(profile: SwarmProfile, seed: number): string {
  return `strata sim ${findSwarmFamily(profile.family).base} --seed ${seed} --swarm-profile ${formatSwarmProfile(profile)}`;
}
