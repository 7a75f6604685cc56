import type { SimProcess } from '../../cluster/index.js';
import type { SimNodeEnv } from '../../runtime/index.js';
import { formatDuration } from '../../fields/index.js';
import { queryText, type StrataWorkloadConfig } from './config.js';
import { seriesKey } from './generator.js';
import { apiTime, parseMatrix, queryApi } from './http_client.js';
import { parseVectorResult } from './model_query.js';
import type { FinalRead, ReadLog, ReadSeries } from './read_log.js';

/** The selector of a whole read: every series of the tenant. */
const EVERY_SERIES = '{__name__=~".+"}';

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
 * The reading client, a Grafana talking to the queriers' Prometheus API over simulated HTTP
 * (`/prometheus/api/v1/...` with `X-Scope-OrgID`). During the run it issues the query mix
 * every `reader.interval`, rotating through instant queries, range queries, `/series` and
 * `/labels` (answers only counted: data is still moving). At `read_at` it reads every
 * tenant's raw samples (an instant query of the range selector `{__name__=~".+"}[range]`,
 * which answers every sample in the range, retrying until answered), then evaluates the
 * scenario's model queries with `/query`. At each of `reader.read_phases` it reads every
 * tenant the same way, retrying until the next read is due. Every answer goes to the
 * harness's ReadLog, which is all the checks look at.
 */
export function strataReader(
  env: SimNodeEnv,
  config: StrataWorkloadConfig,
  deps: ReaderDeps,
): SimProcess {
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

  const api = (
    tenant: string,
    endpoint: 'query' | 'query_range' | 'series' | 'labels',
    params: readonly (readonly [string, string])[],
  ): Promise<unknown> =>
    queryApi(env.http, querier(), endpoint, params, {
      tenant,
      timeoutMs: CALL_TIMEOUT_MS,
      signal: controller.signal,
    });

  /** Every raw sample of the tenant between a block range before the epoch and after the reads. */
  const select = async (tenant: string): Promise<ReadSeries[]> => {
    const start = deps.epochMs - config.blockRangeMs;
    const end = deps.readAtMs + config.blockRangeMs;
    const data = await api(tenant, 'query', [
      ['query', `${EVERY_SERIES}[${end - start}ms]`],
      ['time', apiTime(end)],
    ]);
    return parseMatrix(data).map((s) => ({ key: seriesKey(s.labels), ...s }));
  };

  const instantQuery = (tenant: string, query: string, atMs: number): Promise<unknown> =>
    api(tenant, 'query', [
      ['query', query],
      ['time', apiTime(atMs)],
    ]);

  /** One request of the query mix, by turn: instant, range, series, labels. */
  const mixRequest = async (turn: number, tenant: string, query: string): Promise<void> => {
    const now = env.clock.now();
    const window: [string, string][] = [
      ['start', apiTime(now - 60_000)],
      ['end', apiTime(now)],
    ];
    switch (turn % 4) {
      case 0:
        parseVectorResult(await instantQuery(tenant, query, now));
        return;
      case 1:
        await api(tenant, 'query_range', [['query', query], ...window, ['step', '15']]);
        return;
      case 2:
        await api(tenant, 'series', [['match[]', EVERY_SERIES], ...window]);
        return;
      default:
        await api(tenant, 'labels', window);
    }
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
    for (let turn = 0; deps.now() + config.reader.intervalMs < deps.readAtMs; turn++) {
      if (!(await sleep(config.reader.intervalMs))) return;
      const spec = queries[mixStream.int(queries.length)]!;
      try {
        await mixRequest(turn, spec.tenant, queryText(spec));
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
