import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { episodePromiseViolation } from './episodes.js';
import type { ScenarioDoc } from './family.js';
import {
  LT_FAULTS_FROM_MS,
  LT_FAULTS_UNTIL_MS,
  longTermPromiseViolation,
  minRetentionMs,
} from './long_term_promise.js';
import {
  defaultSwarmFamilies,
  deriveSwarmScenario,
  formatSwarmProfile,
  parseSwarmProfile,
  swarmReplayCommand,
} from './profile.js';
import { swarmJobs } from './swarm_runner.js';

const PROFILES = 120;

function derived(seed: number): { doc: ScenarioDoc; d: ReturnType<typeof deriveSwarmScenario> } {
  const d = deriveSwarmScenario({ family: 'long-term', seed });
  return { doc: parse(d.yaml) as ScenarioDoc, d };
}

type Entry = Record<string, unknown>;

describe('long-term swarm family', () => {
  it('every drawn profile keeps the promise, and the bounds are explored', () => {
    const seen = {
      blockRanges: new Set<number>(),
      kinds: new Set<string>(),
      marks: 0,
      noMarks: 0,
      powerLossInCutoff: 0,
      consistencyDelay: 0,
      expectDeletions: 0,
    };
    for (let seed = 0; seed < PROFILES; seed++) {
      const { doc, d } = derived(seed);
      expect(longTermPromiseViolation(doc), `long-term:${seed}`).toBeUndefined();
      expect(episodePromiseViolation(d.mix.episodes, d.mix.bounds)).toBeUndefined();
      // What runs is what was checked: the parsed scenario has the same faults.
      const { scenario } = d;
      expect(scenario.schedule).toHaveLength((doc.schedule as unknown[]).length);
      expect(scenario.runtime.network.loss).toBe(0);
      expect(scenario.nodes.filter((n) => n.run === 'ingester')).toHaveLength(3);
      for (const f of scenario.schedule) {
        expect(f.atMs).toBeGreaterThanOrEqual(LT_FAULTS_FROM_MS);
        expect(f.atMs).toBeLessThanOrEqual(LT_FAULTS_UNTIL_MS);
        seen.kinds.add(
          f.action.kind === 'crash' || f.action.kind === 'stop'
            ? `${f.action.kind} ${f.action.node.replace(/-\d$/, '')}`
            : f.action.kind,
        );
      }
      const workload = doc.workload as Entry;
      const lt = workload.long_term as Entry;
      seen.blockRanges.add(Number(String(workload.block_range).replace('ms', '')));
      if (lt.consistency_delay !== '0ms') seen.consistencyDelay++;
      const deletions = (doc.checks as unknown[]).find(
        (c): c is Entry => typeof c === 'object' && c !== null && 'deletion_delay_honoured' in c,
      )!;
      const expectDeletions = (deletions.deletion_delay_honoured as Entry).expect_deletions;
      if (lt.mark_for_deletion === undefined) {
        seen.noMarks++;
        expect(expectDeletions).toBe(false);
      } else {
        seen.marks++;
        if (expectDeletions === true) seen.expectDeletions++;
      }
      const schedule = doc.schedule as Entry[];
      // The base's case: cut off from the bucket, then the power goes before the heal.
      const cutoffPowerLoss = schedule.some(
        (e, i) =>
          e.partition !== undefined &&
          schedule[i + 1]?.power_loss === (e.partition as string[][])[0]![0],
      );
      if (cutoffPowerLoss) seen.powerLossInCutoff++;
    }
    expect([...seen.blockRanges].sort()).toEqual([120_000, 180_000, 90_000]);
    expect([...seen.kinds].sort()).toEqual([
      'crash ingester',
      'crash store-gateway',
      'heal',
      'objstore_errors',
      'objstore_throttle',
      'partition',
      'power_loss',
      'restart',
      'start',
      'stop ingester',
      'stop store-gateway',
    ]);
    expect(seen.marks).toBeGreaterThan(PROFILES / 3);
    expect(seen.noMarks).toBeGreaterThan(PROFILES / 5);
    expect(seen.expectDeletions).toBeGreaterThan(seen.marks / 2);
    expect(seen.powerLossInCutoff).toBeGreaterThan(5);
    expect(seen.consistencyDelay).toBeGreaterThan(PROFILES / 5);
  });

  it('the promise checker finds faults beyond the promise', () => {
    // A profile with operator marks and at least one ingester episode to bend.
    let seed = 0;
    for (; seed < PROFILES; seed++) {
      const { doc } = derived(seed);
      const lt = (doc.workload as Entry).long_term as Entry;
      const schedule = doc.schedule as Entry[];
      if (lt.mark_for_deletion !== undefined && schedule.some((e) => e.crash !== undefined)) break;
    }
    const fresh = (): ScenarioDoc => derived(seed).doc;
    const lt = (doc: ScenarioDoc): Entry => (doc.workload as Entry).long_term as Entry;
    const victim = (lt(fresh()).mark_for_deletion as { ingester: string }).ingester;
    const other = ['ingester-1', 'ingester-2', 'ingester-3'].find((n) => n !== victim)!;

    // Two ingesters down at once.
    const twoDown = fresh();
    twoDown.schedule = [
      { at: '700000ms', crash: victim },
      { at: '705000ms', crash: other },
      { at: '710000ms', restart: victim },
      { at: '715000ms', restart: other },
    ];
    expect(longTermPromiseViolation(twoDown)).toMatch(/while .* is disturbed/);

    // A power loss of a replica other than the operator's victim.
    const wrongPower = fresh();
    wrongPower.schedule = [
      { at: '700000ms', power_loss: other },
      { at: '710000ms', restart: other },
    ];
    expect(longTermPromiseViolation(wrongPower)).toMatch(/not the operator's victim/);

    // Another replica disturbed before the marks are over.
    const early = fresh();
    early.schedule = [
      { at: '200000ms', crash: other },
      { at: '210000ms', restart: other },
    ];
    expect(longTermPromiseViolation(early)).toMatch(/before the marks/);

    // A cut-off overlapping an error burst (its heal would end the burst).
    const overlap = fresh();
    overlap.schedule = [
      { at: '200000ms', objstore_errors: 0.3 },
      { at: '210000ms', partition: [[victim], ['objstore']] },
      { at: '220000ms', heal: true },
      { at: '230000ms', objstore_errors: 0 },
    ];
    expect(longTermPromiseViolation(overlap)).toMatch(/overlaps/);

    // Both store-gateways down.
    const gateways = fresh();
    gateways.schedule = [
      { at: '200000ms', crash: 'store-gateway-1' },
      { at: '210000ms', crash: 'store-gateway-2' },
      { at: '220000ms', restart: 'store-gateway-1' },
      { at: '230000ms', restart: 'store-gateway-2' },
    ];
    expect(longTermPromiseViolation(gateways)).toMatch(/too soon/);

    // A retention that lets an ingester delete a block before the store-gateways have it.
    const short = fresh();
    lt(short).retention_period = '200000ms';
    expect(longTermPromiseViolation(short)).toMatch(/retention/);

    // Deletions required although the victim lost power before the marks (seed 208 of the
    // first swarm: it shipped nothing before the only mark).
    const powerless = fresh();
    powerless.schedule = [
      { at: '200000ms', power_loss: victim },
      { at: '210000ms', restart: victim },
    ];
    powerless.checks = [{ deletion_delay_honoured: { expect_deletions: true } }];
    expect(longTermPromiseViolation(powerless)).toMatch(/lost power before the marks/);

    // Random message loss with power losses.
    const lossy = fresh();
    (lossy.network as Entry).loss = 0.01;
    expect(longTermPromiseViolation(lossy)).toMatch(/message loss/);
  });

  it('the retention bound adds up the path from cut to store-gateway', () => {
    const base = {
      blockRange: 120_000,
      ship: 10_000,
      headCompaction: 10_000,
      sync: 15_000,
      consistencyDelay: 0,
      cleanup: 20_000,
      listDelay: 5_000,
      longestWindow: 90_000,
    };
    const min = minRetentionMs(base);
    // Half a range + compaction + ship + upload, listing + cleaner + querier refresh + sync +
    // consistency + margin, the longest window, a failed sync and a margin.
    expect(min).toBe(90_000 + 110_000 + 90_000 + 35_000);
    expect(minRetentionMs({ ...base, listDelay: 10_000 })).toBe(min + 5_000);
    expect(minRetentionMs({ ...base, sync: 30_000 })).toBe(min + 30_000);
  });

  it('profiles print and parse back; the default swarm leaves the family out', () => {
    const p = parseSwarmProfile('long-term:42');
    expect(p).toEqual({ family: 'long-term', seed: 42 });
    expect(formatSwarmProfile(p)).toBe('long-term:42');
    expect(swarmReplayCommand(p, 42)).toBe(
      'strata sim long-term --seed 42 --swarm-profile long-term:42',
    );
    expect(deriveSwarmScenario(p).yaml).toBe(deriveSwarmScenario(p).yaml);
    expect(defaultSwarmFamilies().map((f) => f.name)).not.toContain('long-term');
    expect(swarmJobs({ runs: 30, firstSeed: 0 }).some((j) => j.family === 'long-term')).toBe(false);
    expect(swarmJobs({ runs: 2, firstSeed: 0, family: 'long-term' }).map((j) => j.family)).toEqual([
      'long-term',
      'long-term',
    ]);
  });
});
