import { describe, expect, it } from 'vitest';
import type { Scenario, ScheduledFault } from '../scenario/index.js';
import { episodePromiseViolation } from './episodes.js';
import {
  defaultSwarmFamilies,
  deriveSwarmScenario,
  formatSwarmProfile,
  parseSwarmProfile,
  swarmReplayCommand,
} from './profile.js';
import { FAULTS_UNTIL_MS, JOIN_READY_MS, LEAVE_SETTLE_MS, MAX_LOSS } from './scale_out_family.js';

const PROFILES = 150;

/**
 * The family's promise, checked on the derived scenario itself (its nodes and its parsed
 * schedule), not on the drawing code: the first violation, or undefined.
 */
function promiseViolation(s: Scenario): string | undefined {
  const role = new Map(s.nodes.map((n) => [n.name, n.run]));
  const startAt = new Map(s.nodes.map((n) => [n.name, n.startAtMs]));
  const is = (node: string, run: string): boolean => role.get(node) === run;
  const ingesters = s.nodes.filter((n) => n.run === 'ingester').map((n) => n.name);
  const distributors = s.nodes.filter((n) => n.run === 'distributor').length;
  const stops = s.schedule.filter((f) => f.action.kind === 'stop');
  const settled = Math.max(0, ...stops.map((f) => f.atMs + LEAVE_SETTLE_MS));
  const anyLoss = s.schedule.some((f) => f.action.kind === 'message_loss' && f.action.rate);
  const stopped = new Map<string, number>();
  const down = new Set<string>();
  let partition: 'querier' | 'other' | undefined;
  let intendedLoss = 0;
  const ring = (t: number): number =>
    ingesters.filter((n) => startAt.get(n)! + (startAt.get(n)! > 0 ? JOIN_READY_MS : 0) <= t)
      .length - stopped.size;
  const ends: ScheduledFault[][] = [];
  for (const f of s.schedule) {
    const last = ends.at(-1);
    if (last !== undefined && last[0]!.atMs === f.atMs) last.push(f);
    else ends.push([f]);
  }
  for (const instant of ends) {
    let healed = false;
    for (const f of instant) {
      const a = f.action;
      const at = `at ${f.atMs}ms: ${a.kind}`;
      if (f.atMs < 8_000 || f.atMs > FAULTS_UNTIL_MS) return `${at} outside +8s..+1m50s`;
      const ingester = 'node' in a && is(a.node, 'ingester');
      const replicaFault =
        (a.kind === 'message_loss' && (a.rate ?? 0) > 0) ||
        (ingester && a.kind !== 'stop') ||
        (a.kind === 'partition_one_way' &&
          ((is(a.from, 'distributor') && is(a.to, 'ingester')) ||
            (is(a.from, 'ingester') && is(a.to, 'distributor'))));
      if (replicaFault && f.atMs < settled) return `${at} before the last leave settled`;
      switch (a.kind) {
        case 'stop': {
          if (!ingester) return `${at} of a non-ingester`;
          for (const [other, when] of stopped)
            if (startAt.get(a.node)! < when + LEAVE_SETTLE_MS)
              return `${at}: ${a.node} may hold samples ${other} held`;
          stopped.set(a.node, f.atMs);
          if (ring(f.atMs) < 3) return `${at}: fewer than 3 ingesters left in the ring`;
          break;
        }
        case 'crash':
        case 'power_loss':
          if (a.kind === 'power_loss' && (stops.length > 0 || anyLoss))
            return `${at} with a leave or message loss`;
          if (ingester && partition === 'querier') return `${at} during a querier cut`;
          if (stopped.has(a.node)) return `${at} of a node that left`;
          down.add(a.node);
          if (
            is(a.node, 'distributor') &&
            [...down].filter((n) => is(n, 'distributor')).length >= distributors
          )
            return `${at}: every distributor down`;
          break;
        case 'restart':
          down.delete(a.node);
          break;
        case 'partition':
        case 'partition_one_way': {
          if (partition !== undefined) return `${at} while another partition is on`;
          const ends = a.kind === 'partition' ? a.groups.flat() : [a.from, a.to];
          const querier = ends.some((n) => is(n, 'querier'));
          if (querier) {
            if (ends.length !== 2 || !ends.some((n) => is(n, 'ingester')))
              return `${at}: not one querier from one ingester`;
            if ([...down].some((n) => is(n, 'ingester'))) return `${at} while an ingester is down`;
          }
          partition = querier ? 'querier' : 'other';
          break;
        }
        case 'heal':
          partition = undefined;
          healed = true;
          break;
        case 'message_loss':
          if ((a.rate ?? 0) > MAX_LOSS) return `${at}: rate ${a.rate} over ${MAX_LOSS}`;
          if (!healed || a.rate !== intendedLoss) intendedLoss = a.rate ?? 0;
          healed = false;
          break;
        default:
          return `${at}: not a fault of this family`;
      }
    }
    if (healed && intendedLoss > 0) return `a heal at ${instant[0]!.atMs}ms ends a loss window`;
  }
  if (down.size > 0) return `${[...down].join(', ')} still down at the end`;
  if (partition !== undefined || intendedLoss > 0) return 'a partition or loss left on';
  return undefined;
}

describe('scale-out swarm family', () => {
  it('is in the default swarm, and its profiles print, parse back and replay on scale-out', () => {
    expect(defaultSwarmFamilies().map((f) => f.name)).toContain('scale-out');
    const p = parseSwarmProfile('scale-out:42');
    expect(formatSwarmProfile(p)).toBe('scale-out:42');
    expect(swarmReplayCommand(p, 9)).toBe(
      'strata sim scale-out --seed 9 --swarm-profile scale-out:42',
    );
    const a = deriveSwarmScenario(p);
    expect(deriveSwarmScenario(p).yaml).toBe(a.yaml);
    expect(a.scenario.source).toBe('scale-out');
  });

  it(`keeps its promise over ${PROFILES} profiles and explores its bounds`, () => {
    const seen = {
      sizes: new Set<string>(),
      joins: 0,
      leaves: new Set<number>(),
      powerLoss: 0,
      loss: 0,
      cuts: 0,
      everyIngesterCrash: 0,
      distributorCrash: 0,
      series: new Set<number>(),
    };
    for (let seed = 0; seed < PROFILES; seed++) {
      const { scenario, mix } = deriveSwarmScenario({ family: 'scale-out', seed });
      const count = (run: string): number => scenario.nodes.filter((n) => n.run === run).length;
      const initial = scenario.nodes.filter((n) => n.run === 'ingester' && n.startAtMs === 0);
      for (const run of ['distributor', 'querier', 'writer']) {
        expect(count(run)).toBeGreaterThanOrEqual(1);
        expect(count(run)).toBeLessThanOrEqual(3);
      }
      expect(initial.length).toBeGreaterThanOrEqual(3);
      expect(initial.length).toBeLessThanOrEqual(5);
      seen.sizes.add(
        `${count('distributor')}${count('querier')}${count('writer')}${initial.length}`,
      );
      seen.joins += count('ingester') - initial.length;
      const violation = promiseViolation(scenario);
      expect(violation, `scale-out:${seed}: ${violation}`).toBeUndefined();
      expect(episodePromiseViolation(mix.episodes, mix.bounds)).toBeUndefined();
      const kinds = scenario.schedule.map((f) => f.action.kind);
      seen.leaves.add(kinds.filter((k) => k === 'stop').length);
      if (kinds.includes('power_loss')) seen.powerLoss++;
      if (scenario.schedule.some((f) => f.action.kind === 'message_loss' && f.action.rate))
        seen.loss++;
      if (mix.summary.some((x) => /[1-9]\d* querier-ingester cut/.test(x))) seen.cuts++;
      if (mix.summary.some((x) => x.startsWith('every ingester crashes')))
        seen.everyIngesterCrash++;
      if (mix.summary.some((x) => /^[1-9]\d* distributor crash/.test(x))) seen.distributorCrash++;
      expect(scenario.runtime.network.loss).toBe(0);
      const series = Number(/(\d+) series per tenant/.exec(mix.summary.join(';'))![1]);
      expect(series).toBeGreaterThanOrEqual(4);
      expect(series).toBeLessThanOrEqual(12);
      seen.series.add(series);
    }
    expect(seen.sizes.size).toBeGreaterThan(40);
    expect(seen.joins).toBeGreaterThan(50);
    expect([...seen.leaves].sort()).toEqual([0, 1, 2]);
    for (const n of [
      seen.powerLoss,
      seen.loss,
      seen.cuts,
      seen.everyIngesterCrash,
      seen.distributorCrash,
    ])
      expect(n).toBeGreaterThan(10);
    expect(seen.series.size).toBe(9);
  });

  it('the promise check refuses loss before a leave, leavers sharing samples, a cut during a crash, a power loss with a leave', () => {
    const isCut = (f: ScheduledFault): boolean =>
      f.action.kind.startsWith('partition') && JSON.stringify(f.action).includes('querier');
    const lastStop = (sc: Scenario): number =>
      Math.max(...sc.schedule.filter((f) => f.action.kind === 'stop').map((f) => f.atMs));
    // A profile with a leave and a querier cut after it settled, edited to break the promise.
    const { scenario } = Array.from({ length: 100 }, (_, seed) =>
      deriveSwarmScenario({ family: 'scale-out', seed }),
    ).find(
      ({ scenario: sc }) =>
        sc.schedule.some((f) => f.action.kind === 'stop') &&
        sc.schedule.some((f) => isCut(f) && f.atMs > lastStop(sc) + LEAVE_SETTLE_MS),
    )!;
    expect(promiseViolation(scenario)).toBeUndefined();
    const stop = scenario.schedule.find((f) => f.action.kind === 'stop')!;
    const leaver = (stop.action as { node: string }).node;
    const stay = scenario.nodes.find(
      (n) => n.run === 'ingester' && n.startAtMs === 0 && n.name !== leaver,
    )!.name;
    const fault = (atMs: number, action: ScheduledFault['action']): ScheduledFault => ({
      atMs,
      action,
      origin: 'schedule',
    });
    const withFaults = (...extra: ScheduledFault[]): string | undefined =>
      promiseViolation({
        ...scenario,
        schedule: [...scenario.schedule, ...extra].sort((x, y) => x.atMs - y.atMs),
      });
    expect(
      withFaults(
        fault(stop.atMs - 1_000, { kind: 'message_loss', rate: 0.01 }),
        fault(stop.atMs - 500, { kind: 'message_loss' }),
      ),
    ).toMatch(/message_loss before the last leave settled/);
    expect(withFaults(fault(stop.atMs + 1_000, { kind: 'stop', node: stay }))).toMatch(
      new RegExp(`${stay} may hold samples ${leaver} held`),
    );
    const cut = scenario.schedule.find(
      (f) => isCut(f) && f.atMs > lastStop(scenario) + LEAVE_SETTLE_MS,
    )!;
    expect(
      withFaults(
        fault(cut.atMs - 1, { kind: 'crash', node: stay }),
        fault(cut.atMs + 1, { kind: 'restart', node: stay }),
      ),
    ).toMatch(/while an ingester is down/);
    expect(
      withFaults(
        fault(FAULTS_UNTIL_MS, { kind: 'power_loss', node: stay }),
        fault(FAULTS_UNTIL_MS, { kind: 'restart', node: stay }),
      ),
    ).toMatch(/power_loss with a leave or message loss/);
  });
});
