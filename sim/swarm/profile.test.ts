import { describe, expect, it } from 'vitest';
import { createSeededRandom } from '../../src/runtime/index.js';
import { episodePromiseViolation, generateEpisodes, type EpisodeBounds } from './episodes.js';
import {
  SWARM_FAMILIES,
  defaultSwarmFamilies,
  deriveSwarmScenario,
  formatSwarmProfile,
  parseSwarmProfile,
  swarmReplayCommand,
} from './profile.js';
import { swarmJobs } from './swarm_runner.js';

const PROFILES_PER_FAMILY = 120;

describe('swarm profiles', () => {
  it('print as <family>:<seed> and parse back; unknown families and malformed values are refused', () => {
    const p = parseSwarmProfile('ingester-crash:17');
    expect(p).toEqual({ family: 'ingester-crash', seed: 17 });
    expect(formatSwarmProfile(p)).toBe('ingester-crash:17');
    expect(swarmReplayCommand(p, 17)).toBe(
      'strata sim ingester-crash --seed 17 --swarm-profile ingester-crash:17',
    );
    expect(() => parseSwarmProfile('nope:1')).toThrow(
      /unknown swarm family "nope".*ingester-crash/,
    );
    expect(() => parseSwarmProfile('ingester-crash')).toThrow(/expected <family>:<seed>/);
    expect(() => parseSwarmProfile('ingester-crash:-1')).toThrow(/expected <family>:<seed>/);
  });

  it('derive the same scenario for the same profile, and different mixes for different seeds', () => {
    for (const family of SWARM_FAMILIES) {
      const a = deriveSwarmScenario({ family: family.name, seed: 5 });
      const b = deriveSwarmScenario({ family: family.name, seed: 5 });
      expect(b.yaml).toBe(a.yaml);
      expect(b.scenario).toEqual(a.scenario);
      const others = new Set(
        [1, 2, 3, 4, 6, 7].map((seed) => deriveSwarmScenario({ family: family.name, seed }).yaml),
      );
      expect(others.size).toBe(6);
      expect(a.scenario.source).toBe(family.base);
      expect(a.scenario.description).toContain(`swarm profile ${family.name}:5`);
    }
  });

  it('ingester-crash: topology, rates and episodes stay within the family bounds and its promise', () => {
    const seen = { ingesters: new Set<number>(), powerLoss: 0, loss: 0, kinds: new Set<string>() };
    for (let seed = 0; seed < PROFILES_PER_FAMILY; seed++) {
      const { scenario, mix } = deriveSwarmScenario({ family: 'ingester-crash', seed });
      const ingesters = scenario.nodes.filter((n) => n.run === 'ingester').map((n) => n.name);
      expect(ingesters.length).toBeGreaterThanOrEqual(3);
      expect(ingesters.length).toBeLessThanOrEqual(5);
      seen.ingesters.add(ingesters.length);
      const { loss, duplication } = scenario.runtime.network;
      expect(loss).toBeLessThanOrEqual(0.01);
      expect(duplication).toBeLessThanOrEqual(0.05);
      if (loss > 0) seen.loss++;
      expect(episodePromiseViolation(mix.episodes, mix.bounds)).toBeUndefined();
      const powerLosses = scenario.schedule.filter((f) => f.action.kind === 'power_loss');
      if (powerLosses.length > 0) seen.powerLoss++;
      // Never random loss together with power loss.
      if (loss > 0) expect(powerLosses).toEqual([]);
      // Each fault in the file is one of the episodes, in order, and all end before 1m40s
      // (the scrapes stop at 2m15s, the reads start at 2m30s).
      expect(scenario.schedule.length).toBe(mix.episodes.length * 2);
      for (const f of scenario.schedule) expect(f.atMs).toBeLessThanOrEqual(100_000);
      for (const e of mix.episodes) {
        seen.kinds.add(e.kind);
        expect(ingesters.includes(e.node) || e.node.startsWith('writer-')).toBe(true);
      }
      // At most one node down at any time: a restart always precedes the next crash.
      let down: string | undefined;
      for (const f of scenario.schedule) {
        const a = f.action;
        if (a.kind === 'crash' || a.kind === 'power_loss') {
          expect(down).toBeUndefined();
          down = a.node;
        }
        if (a.kind === 'restart') {
          expect(a.node).toBe(down);
          down = undefined;
        }
      }
    }
    // The bounds are actually explored.
    expect([...seen.ingesters].sort()).toEqual([3, 4, 5]);
    expect(seen.powerLoss).toBeGreaterThan(10);
    expect(seen.loss).toBeGreaterThan(10);
    expect(seen.kinds.size).toBe(6);
  });

  it('late-sender: the late writer is out for more than the 1h window, three ingesters, no power loss, faults over before it returns', () => {
    for (let seed = 0; seed < PROFILES_PER_FAMILY; seed++) {
      const { scenario, mix } = deriveSwarmScenario({ family: 'late-sender', seed });
      expect(scenario.nodes.filter((n) => n.run === 'ingester')).toHaveLength(3);
      expect(scenario.runtime.network.loss).toBe(0);
      expect(episodePromiseViolation(mix.episodes, mix.bounds)).toBeUndefined();
      expect(scenario.schedule.some((f) => f.action.kind === 'power_loss')).toBe(false);
      const outage = mix.summary.find((s) => s.startsWith('writer-late out'))!;
      const [, from, until] = /\+(\d+)m\.\.\+(\d+)m/.exec(outage)!.map(Number);
      expect(until! - from!).toBeGreaterThanOrEqual(64);
      expect(until!).toBeLessThanOrEqual(80);
      // Faults are over 2 minutes before the late writer catches up.
      for (const f of scenario.schedule) expect(f.atMs).toBeLessThanOrEqual((until! - 2) * 60_000);
    }
  });
});

describe('episodes', () => {
  const bounds: EpisodeBounds = {
    fromMs: 0,
    untilMs: 600_000,
    gapMs: [1_000, 5_000],
    downMs: [1_000, 10_000],
    partitionMs: [1_000, 5_000],
    kinds: ['crash', 'power_loss', 'partition_to_ingester'],
    distributor: 'd',
    ingesters: ['i1', 'i2', 'i3'],
    writers: ['w'],
    powerLossAllowed: true,
  };

  it('a power loss only hits the one ingester disturbed so far', () => {
    let powerLosses = 0;
    for (let seed = 0; seed < 200; seed++) {
      const r = createSeededRandom(`episodes-${seed}`).stream('t');
      const episodes = generateEpisodes(bounds, r);
      expect(episodePromiseViolation(episodes, bounds)).toBeUndefined();
      powerLosses += episodes.filter((e) => e.kind === 'power_loss').length;
      const firstOther = episodes.findIndex((e) => e.node !== episodes[0]?.node);
      if (firstOther !== -1)
        expect(episodes.slice(firstOther).some((e) => e.kind === 'power_loss')).toBe(false);
    }
    expect(powerLosses).toBeGreaterThan(50);
    const noPower = { ...bounds, powerLossAllowed: false };
    const r = createSeededRandom('episodes').stream('t');
    expect(generateEpisodes(noPower, r).some((e) => e.kind === 'power_loss')).toBe(false);
  });

  it('the promise check finds overlaps, power loss after another ingester missed samples, and escapes', () => {
    const ep = (kind: 'crash' | 'power_loss', node: string, startMs: number, endMs: number) => ({
      kind,
      node,
      startMs,
      endMs,
    });
    expect(
      episodePromiseViolation([ep('crash', 'i1', 10, 20), ep('crash', 'i2', 15, 30)], bounds),
    ).toMatch(/overlaps/);
    expect(
      episodePromiseViolation([ep('crash', 'i1', 10, 20), ep('power_loss', 'i2', 30, 40)], bounds),
    ).toMatch(/power loss of i2 after i1 missed samples/);
    expect(
      episodePromiseViolation([ep('crash', 'i1', 10, 20), ep('power_loss', 'i1', 30, 40)], bounds),
    ).toBeUndefined();
    expect(
      episodePromiseViolation([ep('power_loss', 'i1', 10, 20)], {
        ...bounds,
        powerLossAllowed: false,
      }),
    ).toMatch(/message loss/);
    expect(episodePromiseViolation([ep('crash', 'i1', 10, 700_000)], bounds)).toMatch(/outside/);
  });
});

describe('swarm jobs', () => {
  it('cycle through the families by seed unless one is chosen', () => {
    const jobs = swarmJobs({ runs: 4, firstSeed: 10 });
    expect(jobs.map((j) => j.seed)).toEqual([10, 11, 12, 13]);
    expect(new Set(jobs.map((j) => j.family))).toEqual(
      new Set(defaultSwarmFamilies().map((f) => f.name)),
    );
    const one = swarmJobs({ runs: 3, firstSeed: 1, family: 'late-sender' });
    expect(one.every((j) => j.family === 'late-sender')).toBe(true);
    expect(() => swarmJobs({ runs: 1, firstSeed: 1, family: 'nope' })).toThrow(
      /unknown swarm family/,
    );
  });
});
