/**
 * One canary run: a built-in scenario (or a scenario file), broken by one canary, run for
 * one seed. The scenario catches the canary on that seed when a check fails.
 */
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { builtinScenarioPath, readHostTextFile } from '../kernel/index.js';
import { parseScenario, runScenario } from '../scenario/index.js';
import { NO_CANARY, findCanary, type ScenarioNode } from './registry.js';

export interface CanaryCase {
  scenario: string;
  /** A canary name, or `none` for the unbroken build. */
  canary: string;
  seed: number;
}

export interface CanaryOutcome extends CanaryCase {
  /** False when the scenario cannot host the canary (nothing ran). */
  applicable: boolean;
  /** Names of the checks that failed (empty: the run passed). */
  failed: string[];
  /** The first failing check's detail, shortened, for the report. */
  firstFailure?: string;
  /**
   * Set when the run could not finish (it threw, or its worker process died): neither a
   * catch nor a miss, counted apart.
   */
  error?: string;
  events: number;
}

const DETAIL_CHARS = 240;

/** The scenario's YAML with the canary switched on; undefined when it does not apply. */
export function brokenScenarioText(scenario: string, canary: string): string | undefined {
  const path = builtinScenarioPath(scenario) ?? scenario;
  const text = readHostTextFile(path);
  if (canary === NO_CANARY) return text;
  const c = findCanary(canary);
  if (c === undefined) throw new Error(`unknown canary ${JSON.stringify(canary)}`);
  const doc = parseYaml(text) as Record<string, unknown>;
  const workload = doc['workload'];
  if (typeof workload !== 'object' || workload === null) return undefined;
  const topology = doc['topology'] as { nodes?: ScenarioNode[] } | undefined;
  if (!c.apply(workload as Record<string, unknown>, topology?.nodes ?? [])) return undefined;
  return stringifyYaml(doc);
}

export async function runCanaryCase(c: CanaryCase): Promise<CanaryOutcome> {
  const text = brokenScenarioText(c.scenario, c.canary);
  if (text === undefined) return { ...c, applicable: false, failed: [], events: 0 };
  const label = c.canary === NO_CANARY ? c.scenario : `${c.scenario}(canary=${c.canary})`;
  const scenario = parseScenario(text, label);
  const report = await runScenario(scenario, c.seed, { commit: () => 'canary', logTail: 0 });
  const failing = report.checks.filter((k) => k.verdict === 'fail');
  const first = failing[0];
  return {
    ...c,
    applicable: true,
    failed: failing.map((k) => k.name),
    ...(first === undefined
      ? {}
      : { firstFailure: `${first.name}: ${first.detail.slice(0, DETAIL_CHARS)}` }),
    events: report.events,
  };
}
