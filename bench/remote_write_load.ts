// Sends pre-built remote-write bodies to one URL with N concurrent keep-alive HTTP clients,
// the way Prometheus's remote-write shards do: each client owns a fixed share of the request
// slots and sends them round after round, one request at a time, so the samples of a series
// always arrive in timestamp order. Records every push's latency and counts accepted samples.
import { Agent, request } from 'node:http';
import type { Round } from './remote_write_gen.js';

export interface PushStats {
  /** Samples in requests answered 2xx. */
  samples: number;
  requests: number;
  /** Requests answered otherwise (or failed); the first answer kept in `firstError`. */
  errors: number;
  firstError: string;
  /** Push latencies of every request, ms. */
  latenciesMs: number[];
  wallSeconds: number;
  /** Whether the time limit stopped the phase before every round was sent. */
  timedOut: boolean;
}

interface PushResult {
  status: number;
  body: string;
}

function post(agent: Agent, url: URL, body: Uint8Array): Promise<PushResult> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          'Content-Type': 'application/x-protobuf',
          'Content-Encoding': 'snappy',
          'X-Prometheus-Remote-Write-Version': '0.1.0',
          'User-Agent': 'strata-bench/remote-write',
          'Content-Length': body.length,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Sends `rounds` in order with `clients` concurrent clients until every request went out or
 * `maxSeconds` passed (no request starts after that; those in flight finish).
 */
export async function pushRounds(
  url: string,
  rounds: readonly Round[],
  clients: number,
  maxSeconds: number,
): Promise<PushStats> {
  const target = new URL(url);
  const agent = new Agent({ keepAlive: true, maxSockets: clients });
  const stats: PushStats = {
    samples: 0,
    requests: 0,
    errors: 0,
    firstError: '',
    latenciesMs: [],
    wallSeconds: 0,
    timedOut: false,
  };
  const start = performance.now();
  const deadline = start + maxSeconds * 1000;
  const client = async (c: number): Promise<void> => {
    for (const round of rounds) {
      for (let slot = c; slot < round.bodies.length; slot += clients) {
        if (performance.now() >= deadline) {
          stats.timedOut = true;
          return;
        }
        const body = round.bodies[slot] as Uint8Array;
        const samplesInRequest = round.samplesPerBody[slot] as number;
        const t0 = performance.now();
        let outcome: string | undefined;
        try {
          const res = await post(agent, target, body);
          if (res.status < 200 || res.status > 299) outcome = `${res.status} ${res.body.trim()}`;
        } catch (err) {
          outcome = `request failed: ${(err as Error).message}`;
        }
        stats.latenciesMs.push(performance.now() - t0);
        stats.requests++;
        if (outcome === undefined) stats.samples += samplesInRequest;
        else {
          stats.errors++;
          if (stats.firstError === '') stats.firstError = outcome.slice(0, 300);
        }
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: clients }, (_, c) => client(c)));
  } finally {
    agent.destroy();
  }
  stats.wallSeconds = (performance.now() - start) / 1000;
  return stats;
}

/** The q-quantile (0..1) of `values`, nearest rank; NaN when empty. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = Float64Array.from(values).sort();
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] as number;
}
