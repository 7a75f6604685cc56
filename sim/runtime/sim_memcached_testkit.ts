import { ServerSelector, type MemcachedClient } from '../../src/cache/index.js';
import type { CacheSpec } from '../../src/runtime/index.js';
import { TEST_EPOCH_MS, createTestWorld, type TestWorld } from '../testing/index.js';
import type { SimMemcachedCluster } from './sim_memcached_server.js';
import type { SimNodeEnv } from './sim_env.js';

/**
 * Test support for the simulated memcached: a node `app` whose process is a component-like
 * user of the `Cache` interface (opened from its Env, as Strata's caches are). Every round it
 * reads all keys, checks each hit against the one value ever written for that key, and writes
 * back what missed. Faults run as cluster events at given times. Test code only.
 */
export const KEYS = Array.from({ length: 30 }, (_, i) => `key-${String(i).padStart(2, '0')}`);
export const ROUND_MS = 250;
export const TIMEOUT_MS = 200;

export const valueOf = (key: string): string => `value of ${key}: ${'#'.repeat(key.length * 3)}`;

export const SPEC: CacheSpec = {
  backend: 'memcached',
  addresses: ['dns+memcached.sim:11211'],
  timeoutMs: TIMEOUT_MS,
  maxIdleConnections: 4,
  maxAsyncConcurrency: 4,
  maxAsyncBufferSize: 1000,
  maxGetMultiConcurrency: 4,
  maxGetMultiBatchSize: 8,
  maxItemSize: 1 << 20,
};

export interface Round {
  /** Virtual ms after the epoch when the round started. */
  at: number;
  /** How long the read took (virtual ms). */
  tookMs: number;
  /** Servers the client spread keys over when the round started. */
  servers: string[];
  hits: string[];
  /** Hits whose value is not the key's: must never happen. */
  wrong: string[];
  /** Errors thrown by the cache: must never happen. */
  errors: string[];
}

export interface HarnessOptions {
  seed?: string;
  rounds?: number;
  /** Initial A records of `memcached.sim` (default: all three servers). */
  members?: string[];
  network?: { loss: number; duplication: number };
  /** The cache's `addresses` (default: `dns+memcached.sim:11211`). */
  addresses?: string[];
  /** `[ms after the epoch, fault]`, each run in a cluster event. */
  faults?: Array<[number, (m: SimMemcachedCluster, w: TestWorld) => void]>;
}

export interface HarnessRun {
  rounds: Round[];
  traceHash: string;
  world: TestWorld;
  client: () => MemcachedClient;
  env: () => SimNodeEnv;
}

const dec = new TextDecoder();
const enc = new TextEncoder();

export async function runCacheUser(opts: HarnessOptions = {}): Promise<HarnessRun> {
  const servers = ['mc-1', 'mc-2', 'mc-3'];
  const world = createTestWorld({
    seed: opts.seed ?? 'memcached',
    configure: (c) => {
      c.memcached = {
        servers,
        dns: { 'memcached.sim': opts.members ?? servers },
        dnsUpdateIntervalMs: 1_000,
      };
      if (opts.network !== undefined) c.network = { ...c.network, ...opts.network };
    },
  });
  const rounds: Round[] = [];
  const total = opts.rounds ?? 40;
  let client: MemcachedClient | undefined;
  let nodeEnv: SimNodeEnv | undefined;
  world.cluster.addNode('app', (env) => ({
    async start(signal) {
      nodeEnv = env;
      const spec = { ...SPEC, ...(opts.addresses ? { addresses: opts.addresses } : {}) };
      const cache = env.caches.open('test-cache', spec);
      client = cache as MemcachedClient;
      for (let r = 0; r < total && !signal.aborted; r++) {
        await env.clock.sleep(ROUND_MS);
        const start = env.clock.now();
        const round: Round = {
          at: start - TEST_EPOCH_MS,
          tookMs: 0,
          servers: [...client.servers],
          hits: [],
          wrong: [],
          errors: [],
        };
        try {
          const got = await cache.getMulti(KEYS);
          round.tookMs = env.clock.now() - start;
          for (const [k, v] of got)
            (dec.decode(v) === valueOf(k) ? round.hits : round.wrong).push(k);
          const missing = KEYS.filter((k) => !got.has(k));
          cache.setMulti(new Map(missing.map((k) => [k, enc.encode(valueOf(k))])), 0);
        } catch (err) {
          round.errors.push(String(err));
        }
        rounds.push(round);
      }
    },
    stop: () => Promise.resolve(),
  }));
  world.cluster.start('app');
  for (const [at, fault] of opts.faults ?? []) {
    world.kernel.at(TEST_EPOCH_MS + at, { kind: 'fault.memcached' }, () =>
      fault(world.services.memcached!, world),
    );
  }
  await world.kernel.run({ until: TEST_EPOCH_MS + total * ROUND_MS * 2 + 5_000 });
  return {
    rounds,
    traceHash: world.kernel.traceHash(),
    world,
    client: () => client!,
    env: () => nodeEnv!,
  };
}

/** The keys jump hash puts on `server` (a name) when the client knows `members`. */
export function keysOn(server: string, members: readonly string[]): string[] {
  const selector = new ServerSelector(members.map((m) => `${m}:11211`));
  return KEYS.filter((k) => selector.pick(k) === `${server}:11211`);
}

/** Rounds that started in [fromMs, untilMs). */
export function roundsIn(rounds: readonly Round[], fromMs: number, untilMs: number): Round[] {
  return rounds.filter((r) => r.at >= fromMs && r.at < untilMs);
}
