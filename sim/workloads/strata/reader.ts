import { decodeSeriesSamples } from '../../../src/ingester/index.js';
import { jsonBody, parseJsonBody, type Env } from '../../../src/runtime/index.js';
import type { SimProcess } from '../../cluster/index.js';
import { queryText, type StrataWorkloadConfig } from './config.js';
import { seriesKey } from './generator.js';
import { parseVectorResult } from './model_query.js';
import { formatDuration } from '../../fields/index.js';
import type { FinalRead, ReadLog, ReadSeries } from './read_log.js';
import { TENANT_HEADER } from './writer.js';

export const QUERIER_SELECT_METHOD = 'querier.Select';
export const QUERIER_QUERY_METHOD = 'querier.Query';

const CALL_TIMEOUT_MS = 10_000;
const RETRY_MS = 1_000;
const QUERY_ATTEMPTS = 10;

export interface ReaderDeps {
  log: ReadLog;
  queriers: readonly string[];
  epochMs: number;
  /** Absolute time of the final reads (after the faults healed). */
  readAtMs: number;
  now: () => number;
}

/**
 * The reading client. During the run it issues the query mix every `reader.interval`
 * (answers only counted: data is still moving). At `read_at` it reads every tenant's
 * series with `querier.Select` (retrying until answered), then evaluates the scenario's
 * model queries with `querier.Query`. At each of `reader.read_phases` it reads every tenant
 * the same way, retrying until the next read is due. Every answer goes to the harness's
 * ReadLog, which is all the checks look at.
 */
export function strataReader(env: Env, config: StrataWorkloadConfig, deps: ReaderDeps): SimProcess {
  const log = env.logger.child({ role: 'reader' });
  const controller = new AbortController();
  const mixStream = env.random.stream('query-mix');
  let next = 0;
  const querier = (): string => deps.queriers[next++ % deps.queriers.length] as string;

  const sleep = async (ms: number): Promise<boolean> => {
    try {
      await env.clock.sleep(ms, controller.signal);
      return true;
    } catch {
      return false;
    }
  };

  const select = async (tenant: string): Promise<ReadSeries[]> => {
    const res = await env.transport.call(
      querier(),
      {
        method: QUERIER_SELECT_METHOD,
        ...jsonBody({
          matchers: [['=~', '__name__', '.+']],
          start: deps.epochMs - config.blockRangeMs,
          end: deps.readAtMs + config.blockRangeMs,
        }),
        headers: { [TENANT_HEADER]: tenant },
      },
      { timeoutMs: CALL_TIMEOUT_MS, signal: controller.signal },
    );
    return decodeSeriesSamples(res.body).map((s) => {
      const labels: [string, string][] = [];
      s.labels.forEach((n, v) => labels.push([n, v]));
      return {
        key: seriesKey(labels),
        labels,
        timestamps: [...s.timestamps],
        values: [...s.values],
      };
    });
  };

  const instantQuery = async (tenant: string, query: string, atMs: number): Promise<unknown> => {
    const res = await env.transport.call(
      querier(),
      {
        method: QUERIER_QUERY_METHOD,
        ...jsonBody({ query, time: atMs }) /* ms, as querier.Query takes it */,
        headers: { [TENANT_HEADER]: tenant },
      },
      { timeoutMs: CALL_TIMEOUT_MS, signal: controller.signal },
    );
    const body = parseJsonBody<{ data?: unknown; resultType?: unknown }>(res);
    // Either the bare `{resultType, result}` or the API envelope `{status, data}`.
    return body.resultType !== undefined ? body : body.data;
  };

  /**
   * Reads every tenant whole, in rounds over the tenants not read yet (so one failing tenant
   * does not starve the others), until all answered or `until` passed. False when stopped.
   */
  const readAll = async (
    reads: Map<string, FinalRead>,
    errors: Map<string, string>,
    until: number,
  ): Promise<boolean> => {
    let pending = config.tenants.map((t) => t.name);
    for (let attempt = 1; pending.length > 0; attempt++) {
      const failed: string[] = [];
      for (const tenant of pending) {
        const startedAt = deps.now();
        try {
          const series = await select(tenant);
          reads.set(tenant, {
            tenant,
            startedAt,
            answeredAt: deps.now(),
            attempts: attempt,
            series,
          });
        } catch (err) {
          if (controller.signal.aborted) return false;
          errors.set(tenant, `attempt ${attempt}: ${(err as Error).message}`);
          failed.push(tenant);
        }
      }
      pending = failed;
      if (pending.length === 0 || deps.now() + RETRY_MS >= until) return true;
      if (!(await sleep(RETRY_MS))) return false;
    }
    return true;
  };

  /** Read phases before the final reads: each one gives up when the next one is due. */
  const phases = async (): Promise<void> => {
    const starts = config.reader.phasesMs.map((p) => deps.epochMs + p);
    for (const [i, at] of starts.entries()) {
      if (at >= deps.readAtMs) return;
      if (at > deps.now() && !(await sleep(at - deps.now()))) return;
      const round = {
        label: `read phase at +${formatDuration(at - deps.epochMs)}`,
        reads: new Map<string, FinalRead>(),
        errors: new Map<string, string>(),
      };
      deps.log.phases.push(round);
      if (!(await readAll(round.reads, round.errors, starts[i + 1] ?? deps.readAtMs))) return;
      log.info('read phase done', { phase: round.label, tenants: round.reads.size });
    }
  };

  const finalReads = async (): Promise<void> => {
    if (!(await readAll(deps.log.finalReads, deps.log.finalReadErrors, Infinity))) return;
    for (const [index, spec] of config.reader.queries.entries()) {
      for (const at of spec.atMs) {
        const atMs = deps.epochMs + at;
        let error = 'not attempted';
        for (let attempt = 1; attempt <= QUERY_ATTEMPTS; attempt++) {
          const startedAt = deps.now();
          try {
            const data = await instantQuery(spec.tenant, queryText(spec), atMs);
            deps.log.queryAnswers.push({
              query: index,
              atMs,
              startedAt,
              answeredAt: deps.now(),
              result: parseVectorResult(data),
            });
            error = '';
            break;
          } catch (err) {
            if (controller.signal.aborted) return;
            error = `attempt ${attempt}: ${(err as Error).message}`;
            if (!(await sleep(RETRY_MS))) return;
          }
        }
        if (error !== '')
          deps.log.queryAnswers.push({
            query: index,
            atMs,
            startedAt: deps.now(),
            answeredAt: deps.now(),
            error,
          });
      }
    }
    log.info('final reads done', { tenants: deps.log.finalReads.size });
  };

  const mix = async (): Promise<void> => {
    const queries = config.reader.queries;
    if (config.reader.intervalMs <= 0 || queries.length === 0) return;
    while (deps.now() + config.reader.intervalMs < deps.readAtMs) {
      if (!(await sleep(config.reader.intervalMs))) return;
      const spec = queries[mixStream.int(queries.length)]!;
      try {
        parseVectorResult(await instantQuery(spec.tenant, queryText(spec), env.clock.now()));
        deps.log.mixOk++;
      } catch (err) {
        if (controller.signal.aborted) return;
        deps.log.mixFailed++;
        log.debug('query failed', { err: (err as Error).message });
      }
    }
  };

  return {
    start(signal: AbortSignal): Promise<void> {
      signal.addEventListener('abort', () => controller.abort(), { once: true });
      void mix();
      void phases();
      env.clock.setTimer(Math.max(0, deps.readAtMs - deps.now()), () => void finalReads());
      return Promise.resolve();
    },
    stop(): Promise<void> {
      controller.abort();
      return Promise.resolve();
    },
  };
}
