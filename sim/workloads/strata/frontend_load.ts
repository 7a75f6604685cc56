import type { SimProcess } from '../../cluster/index.js';
import { SimHttpError, type SimNodeEnv } from '../../runtime/index.js';
import { queryText, type StrataWorkloadConfig } from './config.js';
import type { FrontendSimConfig } from './config_frontend.js';
import { QueryApiError, apiTime, parseMatrix, queryApi, type MatrixSeries } from './http_client.js';

/**
 * Why the reader sent a range query: the run's mix (a non-flooding tenant, judged for
 * fairness), the flooder, a warm-up that fills the results cache, or the repetition of a
 * warm-up after the final reads (judged against the model).
 */
export type FrontendRequestKind = 'mix' | 'flood' | 'warm' | 'repeat';

/** One range query through the query-frontend, as the reader saw it. */
export interface FrontendRequest {
  kind: FrontendRequestKind;
  tenant: string;
  /** Index of the query in the scenario's `reader.queries`. */
  query: number;
  startMs: number;
  endMs: number;
  stepMs: number;
  sentAt: number;
  /** When an answer (any status) or the failure arrived; undefined: still waiting at the end. */
  answeredAt?: number;
  /** The HTTP status, or the client-side failure (`timeout`, `unreachable`, `reset`, `aborted`). */
  outcome?: number | string;
  result?: MatrixSeries[];
  error?: string;
}

/** Every range query the reader sent through the frontend, kept by the harness. */
export class FrontendLog {
  readonly requests: FrontendRequest[] = [];
}

export interface FrontendLoadDeps {
  log: FrontendLog;
  frontends: readonly string[];
  epochMs: number;
  /** The final reads' time; repetitions of the warm-ups start a little after it. */
  readAtMs: number;
  now: () => number;
}

/** How long after the final reads start the warm-up queries are repeated. */
const REPEAT_AFTER_READ_MS = 20_000;

/**
 * The reader's load on the query-frontend, beside the ordinary reader (which reads every
 * tenant whole and evaluates the model's instant queries through the frontend too): range
 * queries of the scenario's queries every `range_interval` for the tenants that do not flood;
 * the flooder's `concurrency` range queries kept in flight; at each `warm_at` every query as a
 * range ending then (filling the results cache while late samples may still be arriving); and
 * after the final reads each warm-up again, twice, with the same parameters.
 */
export function frontendLoad(
  env: SimNodeEnv,
  config: StrataWorkloadConfig,
  f: FrontendSimConfig,
  deps: FrontendLoadDeps,
): SimProcess {
  const controller = new AbortController();
  const mixStream = env.random.stream('frontend-mix');
  const queries = config.reader.queries;
  let next = 0;
  const frontend = (): string => deps.frontends[next++ % deps.frontends.length] as string;

  const sleep = async (ms: number): Promise<boolean> => {
    try {
      await env.clock.sleep(ms, controller.signal);
      return true;
    } catch {
      return false;
    }
  };

  const send = async (
    kind: FrontendRequestKind,
    query: number,
    tenant: string,
    startMs: number,
    endMs: number,
    stepMs = f.stepMs,
  ): Promise<FrontendRequest> => {
    const spec = queries[query]!;
    const req: FrontendRequest = {
      kind,
      tenant,
      query,
      startMs,
      endMs,
      stepMs,
      sentAt: deps.now(),
    };
    deps.log.requests.push(req);
    try {
      const data = await queryApi(
        env.http,
        frontend(),
        'query_range',
        [
          ['query', queryText(spec)],
          ['start', apiTime(startMs)],
          ['end', apiTime(endMs)],
          ['step', apiTime(stepMs)],
        ],
        // No abort signal: dozens of requests listening on one signal make Node warn through
        // process.nextTick; the timeout bounds each one, and stop() marks the rest abandoned.
        { tenant, timeoutMs: f.requestTimeoutMs },
      );
      if (req.outcome !== undefined) return req; // abandoned by stop()
      req.result = parseMatrix(data);
      req.outcome = 200;
    } catch (err) {
      if (req.outcome !== undefined) return req; // abandoned by stop()
      if (err instanceof QueryApiError) req.outcome = err.status;
      else if (err instanceof SimHttpError) req.outcome = err.kind;
      else req.outcome = 'bad answer';
      req.error = (err as Error).message;
    }
    req.answeredAt = deps.now();
    return req;
  };

  /** The range ending at `at`, rounded down to the step. */
  const window = (at: number): [number, number] => {
    const end = Math.floor(at / f.stepMs) * f.stepMs;
    return [end - f.rangeMs, end];
  };

  const flooder = f.flood?.tenant;
  const mixQueries = queries.map((q, i) => [q, i] as const).filter(([q]) => q.tenant !== flooder);

  const mix = async (): Promise<void> => {
    if (f.rangeIntervalMs <= 0 || mixQueries.length === 0) return;
    while (deps.now() + f.rangeIntervalMs < deps.readAtMs) {
      if (!(await sleep(f.rangeIntervalMs))) return;
      const [spec, index] = mixQueries[mixStream.int(mixQueries.length)]!;
      void send('mix', index, spec.tenant, ...window(deps.now()));
    }
  };

  /** One of the flooder's loops: a range query after another, each over a different window. */
  const floodLoop = async (flood: NonNullable<FrontendSimConfig['flood']>): Promise<void> => {
    const own = queries.map((q, i) => [q, i] as const).filter(([q]) => q.tenant === flood.tenant);
    const pool = own.length > 0 ? own : queries.map((q, i) => [q, i] as const);
    const until = deps.epochMs + flood.untilMs;
    while (!controller.signal.aborted && deps.now() < until) {
      const [, index] = pool[mixStream.int(pool.length)]!;
      // A random step (to the millisecond, up to twice the scenario's), so the flooder's
      // queries miss the results cache (whose keys hold the step) and every split sub-query
      // does real work on a querier: the flooder's queue fills with work, not with hits.
      const step = f.stepMs + mixStream.int(f.stepMs);
      const end = Math.floor(deps.now() / step) * step;
      const req = await send('flood', index, flood.tenant, end - f.rangeMs, end, step);
      // The next query after a breath; after a refusal (429) after two seconds, like a client
      // backing off a little.
      // Without the abort signal: one listener per loop on it would pass Node's limit of 10
      // and make it warn through process.nextTick; the loop checks the signal instead.
      await env.clock.sleep(req.outcome === 429 ? 2_000 : 500);
    }
  };

  const warmAndRepeat = async (): Promise<void> => {
    const warmed: [number, number, number][] = [];
    for (const at of f.warmAtMs) {
      const abs = deps.epochMs + at;
      if (abs > deps.now() && !(await sleep(abs - deps.now()))) return;
      for (const [i, spec] of queries.entries()) {
        const [start, end] = window(abs);
        warmed.push([i, start, end]);
        await send('warm', i, spec.tenant, start, end);
      }
    }
    const repeatAt = deps.readAtMs + REPEAT_AFTER_READ_MS;
    if (repeatAt > deps.now() && !(await sleep(repeatAt - deps.now()))) return;
    for (let round = 0; round < 2; round++)
      for (const [i, start, end] of warmed) await send('repeat', i, queries[i]!.tenant, start, end);
  };

  return {
    start(signal: AbortSignal): Promise<void> {
      signal.addEventListener('abort', () => controller.abort(), { once: true });
      void mix();
      void warmAndRepeat();
      const flood = f.flood;
      if (flood !== undefined)
        env.clock.setTimer(Math.max(0, deps.epochMs + flood.fromMs - deps.now()), () => {
          for (let k = 0; k < flood.concurrency; k++) void floodLoop(flood);
        });
      return Promise.resolve();
    },
    stop(): Promise<void> {
      controller.abort();
      for (const r of deps.log.requests)
        if (r.outcome === undefined) {
          r.outcome = 'aborted';
          r.answeredAt = deps.now();
        }
      return Promise.resolve();
    },
  };
}
