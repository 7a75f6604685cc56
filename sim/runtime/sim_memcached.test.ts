import { describe, expect, it } from 'vitest';
import { MemcachedClient } from '../../src/cache/index.js';
import { metricValue } from '../../src/cache/memcached_client_testkit.js';
import type { Cache } from '../../src/runtime/index.js';
import { TEST_EPOCH_MS, createTestWorld } from '../testing/index.js';
import { SimCache } from './sim_cache.js';
import {
  KEYS,
  SPEC,
  TIMEOUT_MS,
  keysOn,
  roundsIn,
  runCacheUser,
  type HarnessRun,
  type Round,
} from './sim_memcached_testkit.js';

/**
 * The product's memcached client (`src/cache`) against simulated memcached servers and DNS:
 * whatever the fault, no call throws and no hit is ever a wrong value; faults cost misses only
 * where they should, and everything replays exactly from the seed.
 */
const ALL = ['mc-1', 'mc-2', 'mc-3'];
const sorted = (keys: readonly string[]): string[] => [...keys].sort();
const others = (keys: readonly string[]): string[] => KEYS.filter((k) => !keys.includes(k));

function expectSafe(run: HarnessRun): void {
  expect(run.rounds.length).toBeGreaterThan(10);
  expect(run.rounds.flatMap((r) => r.wrong)).toEqual([]);
  expect(run.rounds.flatMap((r) => r.errors)).toEqual([]);
  expect(run.world.kernel.errors).toEqual([]);
}

/** In every round of the window, `keys` all miss and the rest all hit. */
function expectMissesExactly(window: Round[], keys: readonly string[]): void {
  expect(window.length).toBeGreaterThan(2);
  for (const r of window) {
    expect(sorted(r.hits), `round at ${r.at}ms`).toEqual(sorted(others(keys)));
  }
}

describe('simulated memcached under the real client', () => {
  it('spreads keys over the servers by jump hash and serves them over the network', async () => {
    const run = await runCacheUser({ rounds: 12 });
    expectSafe(run);
    const first = run.rounds[0]!;
    expect(first.hits).toEqual([]);
    expect(first.servers).toEqual(['mc-1:11211', 'mc-2:11211', 'mc-3:11211']);
    for (const r of run.rounds.slice(2)) expect(r.hits.length).toBe(KEYS.length);
    // Each server holds exactly the keys jump hash gives it, with the right bytes.
    const m = run.world.services.memcached!;
    for (const s of ALL) {
      const held = KEYS.filter((k) => m.server(s).peek(k) !== undefined);
      expect(held, s).toEqual(keysOn(s, ALL));
      expect(held.length).toBeGreaterThan(0);
    }
    expect(run.world.services.network.stats.sent).toBeGreaterThan(50);
  });

  it('resolves SRV and static addresses through the simulated DNS too', async () => {
    for (const addresses of [
      ['dnssrv+_memcached._tcp.memcached.sim'],
      ['dnssrvnoa+_memcached._tcp.memcached.sim'],
      ['mc-3:11211', 'mc-1:11211', 'mc-2:11211'],
    ]) {
      const run = await runCacheUser({ rounds: 12, addresses });
      expectSafe(run);
      expect(run.rounds.at(-1)!.servers, addresses[0]).toEqual([
        'mc-1:11211',
        'mc-2:11211',
        'mc-3:11211',
      ]);
      expect(run.rounds.at(-1)!.hits.length).toBe(KEYS.length);
    }
    const unknown = await runCacheUser({ rounds: 12, addresses: ['dns+nowhere.sim:11211'] });
    expectSafe(unknown);
    expect(unknown.rounds.flatMap((r) => r.hits)).toEqual([]);
  });

  it('a crashed server refuses connections, loses its data, and only its keys miss', async () => {
    let itemsAtRestart = -1;
    const run = await runCacheUser({
      faults: [
        [3_100, (m) => m.server('mc-2').crash()],
        [
          6_100,
          (m) => {
            itemsAtRestart = m.server('mc-2').itemCount;
            m.server('mc-2').restart();
          },
        ],
      ],
    });
    expectSafe(run);
    const lost = keysOn('mc-2', ALL);
    expectMissesExactly(roundsIn(run.rounds, 3_200, 6_100), lost);
    expect(itemsAtRestart).toBe(0);
    // Back up but empty: its keys miss once more, are written again, then hit.
    expect(sorted(roundsIn(run.rounds, 6_100, 6_400)[0]!.hits)).toEqual(sorted(others(lost)));
    for (const r of roundsIn(run.rounds, 6_700, 99_000)) expect(r.hits.length).toBe(KEYS.length);
    const failures = await metricValue(
      run.env().metrics,
      'thanos_memcached_operation_failures_total',
      { name: 'test-cache', operation: 'getmulti', reason: 'network-error' },
    );
    expect(failures).toBeGreaterThan(0);
  });

  it('a server slower than the client timeout costs misses, bounded by the timeout', async () => {
    const run = await runCacheUser({
      faults: [
        [3_100, (m) => m.server('mc-1').setSlow(TIMEOUT_MS * 5)],
        [6_100, (m) => m.server('mc-1').setSlow(0)],
      ],
    });
    expectSafe(run);
    const slow = roundsIn(run.rounds, 3_200, 6_100);
    expectMissesExactly(slow, keysOn('mc-1', ALL));
    for (const r of slow) expect(r.tookMs).toBeLessThanOrEqual(TIMEOUT_MS + 20);
    // Its data was never lost: once fast again, every key hits without being rewritten.
    for (const r of roundsIn(run.rounds, 6_500, 99_000)) expect(r.hits.length).toBe(KEYS.length);
  });

  for (const mode of ['garbage', 'other_key'] as const) {
    it(`wrong values (${mode}) become misses, never wrong hits`, async () => {
      const run = await runCacheUser({
        faults: [
          [3_100, (m) => m.server('mc-3').setWrongValues(mode)],
          [6_100, (m) => m.server('mc-3').setWrongValues('off')],
        ],
      });
      expectSafe(run);
      expectMissesExactly(roundsIn(run.rounds, 3_200, 6_100), keysOn('mc-3', ALL));
      for (const r of roundsIn(run.rounds, 6_500, 99_000)) expect(r.hits.length).toBe(KEYS.length);
      const failures = await metricValue(
        run.env().metrics,
        'thanos_memcached_operation_failures_total',
        { name: 'test-cache', operation: 'getmulti', reason: 'other' },
      );
      expect(failures).toBeGreaterThan(0);
      if (mode === 'garbage')
        expect(run.world.services.memcached!.server('mc-3').stats.garbled).toBeGreaterThan(0);
    });
  }

  it('membership changes in DNS move keys as jump hash says', async () => {
    const shrunkTo = ['mc-1', 'mc-3'];
    let heldWhereTheyGo: string[] = [];
    const run = await runCacheUser({
      members: ['mc-1', 'mc-2'],
      faults: [
        [3_100, (m) => m.dns.set('memcached.sim', ALL)],
        [
          7_100,
          (m) => {
            m.dns.set('memcached.sim', shrunkTo);
            // What each key's new server already holds (copies from earlier memberships).
            heldWhereTheyGo = shrunkTo.flatMap((s) =>
              keysOn(s, shrunkTo).filter((k) => m.server(s).peek(k) !== undefined),
            );
          },
        ],
      ],
    });
    expectSafe(run);
    const names = (r: Round): string => r.servers.join(',');
    expect(names(run.rounds[2]!)).toBe('mc-1:11211,mc-2:11211');
    expect(names(roundsIn(run.rounds, 4_500, 7_000)[0]!)).toBe('mc-1:11211,mc-2:11211,mc-3:11211');
    expect(names(run.rounds.at(-1)!)).toBe('mc-1:11211,mc-3:11211');
    // Adding mc-3 (last in natural order) moves keys only onto it: exactly those miss once.
    const grown = run.rounds.find((r) => r.servers.length === 3)!;
    const moved = keysOn('mc-3', ALL);
    expect(moved.length).toBeGreaterThan(0);
    expect(sorted(grown.hits)).toEqual(sorted(others(moved)));
    // Removing mc-2 from the middle re-spreads keys over two servers: a key hits only where
    // its new server already has it.
    const shrunk = run.rounds.find((r) => names(r) === 'mc-1:11211,mc-3:11211')!;
    expect(heldWhereTheyGo.length).toBeLessThan(KEYS.length);
    expect(sorted(shrunk.hits)).toEqual(sorted(heldWhereTheyGo));
    expect(run.rounds.at(-1)!.hits.length).toBe(KEYS.length);
    const servers = await metricValue(run.env().metrics, 'cortex_memcache_client_servers', {
      name: 'test-cache',
    });
    expect(servers).toBe(2);
  });

  it('cache loss (wipe) empties every server; the cache refills', async () => {
    const run = await runCacheUser({
      faults: [[3_100, (_m, w) => w.services.wipeCaches()]],
    });
    expectSafe(run);
    expect(roundsIn(run.rounds, 3_100, 3_400)[0]!.hits).toEqual([]);
    for (const r of roundsIn(run.rounds, 3_700, 99_000)) expect(r.hits.length).toBe(KEYS.length);
  });

  it('a partition between the node and one server costs that server’s keys only', async () => {
    const run = await runCacheUser({
      faults: [
        [3_100, (_m, w) => w.services.network.partition([['app'], ['mc-2']], 'p')],
        [6_100, (_m, w) => w.services.network.healPartition('p')],
      ],
    });
    expectSafe(run);
    const cut = roundsIn(run.rounds, 3_200, 6_100);
    expectMissesExactly(cut, keysOn('mc-2', ALL));
    for (const r of cut) expect(r.tookMs).toBeLessThanOrEqual(TIMEOUT_MS + 20);
    for (const r of roundsIn(run.rounds, 6_700, 99_000)) expect(r.hits.length).toBe(KEYS.length);
  });
});

describe('the sim Env cache provider', () => {
  it('opens the real client only when the scenario declares memcached servers', async () => {
    const opened: Cache[] = [];
    for (const withServers of [true, false]) {
      const w = createTestWorld({
        configure: (c) => {
          if (withServers) c.memcached = { servers: ['mc-1'], dns: {} };
        },
      });
      w.cluster.addNode('n', (env) => ({
        start: () => {
          opened.push(env.caches.open('c', SPEC));
          return Promise.resolve();
        },
        stop: () => Promise.resolve(),
      }));
      w.cluster.start('n');
      await w.kernel.run({ until: TEST_EPOCH_MS + 1_000 });
    }
    expect(opened[0]).toBeInstanceOf(MemcachedClient);
    expect(opened[1]).toBeInstanceOf(SimCache);
  });
});

describe('determinism of the simulated memcached', () => {
  const chaos = {
    network: { loss: 0.02, duplication: 0.05 },
    faults: [
      [2_100, (m) => m.server('mc-1').setWrongValues('garbage')],
      [3_100, (m) => m.server('mc-2').crash()],
      [4_100, (m) => m.dns.set('memcached.sim', ['mc-1', 'mc-3'])],
      [5_100, (m) => m.server('mc-3').setSlow(TIMEOUT_MS * 2)],
      [6_100, (m) => m.server('mc-1').setWrongValues('other_key')],
      [7_100, (m) => m.server('mc-2').restart()],
      [7_200, (m) => m.dns.set('memcached.sim', ALL)],
      [8_100, (m) => m.server('mc-3').setSlow(0)],
      [8_200, (m) => m.server('mc-1').setWrongValues('off')],
    ],
  } satisfies Parameters<typeof runCacheUser>[0];

  it('same seed, same observations and trace; loss and duplication never corrupt values', async () => {
    const a = await runCacheUser({ ...chaos, seed: 's1' });
    const b = await runCacheUser({ ...chaos, seed: 's1' });
    expectSafe(a);
    expect(b.rounds).toEqual(a.rounds);
    expect(b.traceHash).toBe(a.traceHash);
    // Packets really were lost and duplicated, and the cache still answered most reads.
    const stats = a.world.services.network.stats;
    expect(stats.lost).toBeGreaterThan(0);
    expect(stats.duplicated).toBeGreaterThan(0);
    expect(a.rounds.at(-1)!.hits.length).toBeGreaterThan(KEYS.length / 2);
    const c = await runCacheUser({ ...chaos, seed: 's2' });
    expectSafe(c);
    expect(c.traceHash).not.toBe(a.traceHash);
  });
});
