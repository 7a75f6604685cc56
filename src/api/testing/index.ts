/**
 * Test doubles for the query API, for the tests of components that register it: a fake
 * engine that records its calls and answers what it is told, and a server with the API
 * registered over per-tenant in-memory stores. Nothing here listens on a socket.
 */
import {
  Annotations,
  type Expr,
  MemoryStorage,
  type PromQLEngine,
  QueryCanceledError,
  type QueryOptions,
  type QueryResult,
  type Queryable,
  type QueryValue,
} from '../../promql/index.js';
import { newMetricsRegistry } from '../../runtime/index.js';
import { CapturingLogger, ManualClock } from '../../runtime/testing/index.js';
import { HttpServer } from '../../server/index.js';
import { registerPrometheusApi } from '../register.js';
import type { BuildInfo, PrometheusApiDeps } from '../types.js';

export interface EngineCall {
  readonly kind: 'instant' | 'range';
  readonly queryable: Queryable;
  readonly query: string | Expr;
  readonly time?: number;
  readonly start?: number;
  readonly end?: number;
  readonly step?: number;
  readonly options: QueryOptions | undefined;
}

/** Answers every query with `result` (or throws `error`), recording the calls. */
export class FakeEngine implements PromQLEngine {
  readonly calls: EngineCall[] = [];
  result: QueryResult = resultOf({ type: 'vector', vector: [] });
  error: Error | undefined;
  /** When set, the engine waits for its signal to abort and then throws as the engine would. */
  hang = false;
  private onCall: (() => void) | undefined;

  /** Resolves at the next call. */
  called(): Promise<void> {
    return new Promise((resolve) => (this.onCall = resolve));
  }

  private async answer(call: EngineCall): Promise<QueryResult> {
    this.calls.push(call);
    this.onCall?.();
    if (this.hang) {
      const signal = call.options?.signal;
      await new Promise<void>((resolve) => {
        if (signal?.aborted === true) resolve();
        signal?.addEventListener('abort', () => resolve(), { once: true });
      });
      throw new QueryCanceledError('expression evaluation');
    }
    if (this.error !== undefined) throw this.error;
    return this.result;
  }

  instantQuery(
    queryable: Queryable,
    query: string | Expr,
    time: number,
    options?: QueryOptions,
  ): Promise<QueryResult> {
    return this.answer({ kind: 'instant', queryable, query, time, options });
  }

  rangeQuery(
    queryable: Queryable,
    query: string | Expr,
    start: number,
    end: number,
    step: number,
    options?: QueryOptions,
  ): Promise<QueryResult> {
    return this.answer({ kind: 'range', queryable, query, start, end, step, options });
  }
}

/** A query result with fixed stats (7 queryable samples, peak 3, default engine). */
export function resultOf(value: QueryValue, annotations = new Annotations()): QueryResult {
  return {
    value,
    annotations,
    stats: { totalQueryableSamples: 7, peakSamples: 3, engine: 'prometheus' },
  };
}

export const TEST_BUILD_INFO: BuildInfo = {
  version: '0.1.0',
  revision: 'abc',
  branch: 'main',
  buildUser: 'u@h',
  buildDate: '20260101-00:00:00',
  goVersion: 'node v20',
};

export interface TestApi {
  readonly server: HttpServer;
  readonly clock: ManualClock;
  readonly engine: FakeEngine;
  readonly thanos: FakeEngine;
  /** The tenants' stores, created on first use; tests may replace one. */
  readonly storages: Map<string, MemoryStorage>;
}

/**
 * An HTTP server (auth enabled, default prefixes, clock at 1700000000.123) with the API
 * registered over fake engines (`thanos` only when `withThanos`) and in-memory stores.
 */
export function newTestApi(overrides: Partial<PrometheusApiDeps> = {}, withThanos = true): TestApi {
  const clock = new ManualClock(1_700_000_000_123);
  const server = new HttpServer(
    {
      authEnabled: true,
      prefixes: { legacy: '/api/prom', prometheus: '/prometheus', alertmanager: '/alertmanager' },
    },
    { clock, logger: new CapturingLogger(), metrics: newMetricsRegistry() },
  );
  const engine = new FakeEngine();
  const thanos = new FakeEngine();
  const storages = new Map<string, MemoryStorage>();
  const storageOf = (tenant: string): MemoryStorage => {
    let s = storages.get(tenant);
    if (s === undefined) {
      s = new MemoryStorage();
      storages.set(tenant, s);
    }
    return s;
  };
  registerPrometheusApi(server, {
    queryable: storageOf,
    engines: withThanos ? { prometheus: engine, thanos } : { prometheus: engine },
    buildInfo: TEST_BUILD_INFO,
    clock,
    ...overrides,
  });
  return { server, clock, engine, thanos, storages };
}
