/**
 * Debian's Prometheus (2.42, `/usr/bin/prometheus`) as a test service: started on a free
 * loopback port with a temp config and a given data directory, scraping the given targets
 * (and itself) at a short interval, plus a small client for its HTTP API. Tests compare
 * Strata against it, so the helper keeps its setup explicit: nothing else listens, nothing
 * is written outside the directories the caller owns.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../strata-process.js';
import { spawnService, waitUntilReady, type ServiceProcess } from './process.js';

export const PROMETHEUS_BIN = '/usr/bin/prometheus';

export interface ScrapeJob {
  readonly job: string;
  /** `host:port` addresses. */
  readonly targets: readonly string[];
}

export interface PrometheusOptions {
  /** TSDB directory (`--storage.tsdb.path`); created by Prometheus when missing. */
  readonly dataDir: string;
  /** Jobs to scrape besides itself. */
  readonly jobs?: readonly ScrapeJob[];
  /** Whether Prometheus scrapes its own /metrics as job `prometheus` (default true). */
  readonly scrapeSelf?: boolean;
  /** Global scrape interval, e.g. `1s` (default `1s`). */
  readonly scrapeInterval?: string;
  /**
   * Global evaluation interval, which is also the step of subqueries written without one
   * (`x[5m:]`); Prometheus's default 1m when absent.
   */
  readonly evaluationInterval?: string;
  /** Remote-write queues (Prometheus's `remote_write` section). */
  readonly remoteWrite?: readonly RemoteWriteTarget[];
  /** More command-line flags, e.g. `--query.lookback-delta=1m`. */
  readonly extraArgs?: readonly string[];
  readonly readyTimeoutMs?: number;
}

/** One `remote_write` entry. */
export interface RemoteWriteTarget {
  readonly url: string;
  /** `name` of the queue (the `remote_name` label of the queue's metrics). */
  readonly name?: string;
  /** `queue_config.batch_send_deadline`, e.g. `1s` (Prometheus's default 5s). */
  readonly batchSendDeadline?: string;
  /** `metadata_config.send_interval`, e.g. `5s` (Prometheus's default 1m). */
  readonly metadataSendInterval?: string;
}

function remoteWriteEntry(t: RemoteWriteTarget): Record<string, unknown> {
  const entry: Record<string, unknown> = { url: t.url };
  if (t.name !== undefined) entry['name'] = t.name;
  if (t.batchSendDeadline !== undefined)
    entry['queue_config'] = { batch_send_deadline: t.batchSendDeadline };
  if (t.metadataSendInterval !== undefined)
    entry['metadata_config'] = { send_interval: t.metadataSendInterval };
  return entry;
}

export interface PrometheusService extends ServiceProcess {
  readonly port: number;
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly dataDir: string;
  readonly api: PrometheusApi;
}

function configYaml(port: number, opts: PrometheusOptions): string {
  const interval = opts.scrapeInterval ?? '1s';
  const jobs: ScrapeJob[] = [...(opts.jobs ?? [])];
  if (opts.scrapeSelf ?? true) jobs.unshift({ job: 'prometheus', targets: [`127.0.0.1:${port}`] });
  const lines = ['global:', `  scrape_interval: ${interval}`];
  if (opts.evaluationInterval !== undefined)
    lines.push(`  evaluation_interval: ${opts.evaluationInterval}`);
  if (jobs.length === 0) lines.push('scrape_configs: []');
  else {
    lines.push('scrape_configs:');
    for (const j of jobs) {
      lines.push(`  - job_name: ${JSON.stringify(j.job)}`);
      lines.push(`    scrape_timeout: ${interval}`);
      lines.push('    static_configs:');
      lines.push(`      - targets: [${j.targets.map((t) => JSON.stringify(t)).join(', ')}]`);
    }
  }
  // JSON is YAML: one flow-style line per queue.
  if (opts.remoteWrite !== undefined && opts.remoteWrite.length > 0) {
    lines.push('remote_write:');
    for (const t of opts.remoteWrite) lines.push(`  - ${JSON.stringify(remoteWriteEntry(t))}`);
  }
  return lines.join('\n') + '\n';
}

/** Starts Prometheus and resolves once `/-/ready` answers 200 (the TSDB is open). */
export async function startPrometheus(opts: PrometheusOptions): Promise<PrometheusService> {
  const port = await freePort();
  const confDir = mkdtempSync(join(tmpdir(), 'strata-prom-conf-'));
  const configFile = join(confDir, 'prometheus.yml');
  writeFileSync(configFile, configYaml(port, opts));
  const svc = spawnService('prometheus', PROMETHEUS_BIN, [
    `--config.file=${configFile}`,
    `--storage.tsdb.path=${opts.dataDir}`,
    `--web.listen-address=127.0.0.1:${port}`,
    '--log.level=warn',
    ...(opts.extraArgs ?? []),
  ]);
  const url = `http://127.0.0.1:${port}`;
  const stop = async (graceMs?: number): Promise<number | string> => {
    try {
      return await svc.stop(graceMs);
    } finally {
      rmSync(confDir, { recursive: true, force: true });
    }
  };
  const service: PrometheusService = {
    ...svc,
    stop,
    port,
    url,
    dataDir: opts.dataDir,
    api: new PrometheusApi(url),
  };
  try {
    await waitUntilReady(svc, `${url}/-/ready`, opts.readyTimeoutMs ?? 30_000);
  } catch (err) {
    await stop();
    throw err;
  }
  return service;
}

/** The `data` of a successful API answer, and its warnings. */
export interface ApiSuccess<T> {
  readonly data: T;
  readonly warnings: readonly string[];
}

/** An API answer with `status: "error"`. */
export class PrometheusApiError extends Error {
  constructor(
    readonly httpStatus: number,
    readonly errorType: string,
    readonly error: string,
  ) {
    super(`${httpStatus} ${errorType}: ${error}`);
    this.name = 'PrometheusApiError';
  }
}

/** The JSON shapes of /api/v1/query and /api/v1/query_range (`[unix seconds, "value"]`). */
export type ApiSamplePair = [number, string];
export type ApiQueryData =
  | { resultType: 'vector'; result: { metric: Record<string, string>; value: ApiSamplePair }[] }
  | {
      resultType: 'matrix';
      result: { metric: Record<string, string>; values: ApiSamplePair[] }[];
    }
  | { resultType: 'scalar'; result: ApiSamplePair }
  | { resultType: 'string'; result: ApiSamplePair };

/** Milliseconds as an RFC 3339 time, which the API parses to the exact millisecond. */
export function apiTime(ms: number): string {
  return new Date(ms).toISOString();
}

/** A minimal client for Prometheus's HTTP API (GET, form parameters in the query string). */
export class PrometheusApi {
  /**
   * `headers` go with every request: Strata's API needs `X-Scope-OrgID` when auth is
   * enabled, so the same client asks both.
   */
  constructor(
    readonly url: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {}

  async get<T>(
    path: string,
    params: Record<string, string | readonly string[]> = {},
  ): Promise<ApiSuccess<T>> {
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) {
      for (const one of typeof v === 'string' ? [v] : v) qs.append(k, one);
    }
    const res = await fetch(`${this.url}${path}?${qs.toString()}`, { headers: this.headers });
    const body = (await res.json()) as {
      status: string;
      data?: T;
      warnings?: string[];
      errorType?: string;
      error?: string;
    };
    if (body.status !== 'success' || body.data === undefined) {
      throw new PrometheusApiError(res.status, body.errorType ?? '', body.error ?? '');
    }
    return { data: body.data, warnings: body.warnings ?? [] };
  }

  query(query: string, timeMs: number): Promise<ApiSuccess<ApiQueryData>> {
    return this.get('/api/v1/query', { query, time: apiTime(timeMs) });
  }

  queryRange(
    query: string,
    startMs: number,
    endMs: number,
    stepMs: number,
  ): Promise<ApiSuccess<ApiQueryData>> {
    return this.get('/api/v1/query_range', {
      query,
      start: apiTime(startMs),
      end: apiTime(endMs),
      step: String(stepMs / 1000),
    });
  }

  /** `/api/v1/series` for the given selectors over [startMs, endMs]. */
  async series(
    match: readonly string[],
    startMs: number,
    endMs: number,
  ): Promise<Record<string, string>[]> {
    const r = await this.get<Record<string, string>[]>('/api/v1/series', {
      'match[]': match,
      start: apiTime(startMs),
      end: apiTime(endMs),
    });
    return r.data;
  }

  async labelNames(
    startMs: number,
    endMs: number,
    match: readonly string[] = [],
  ): Promise<string[]> {
    const r = await this.get<string[]>('/api/v1/labels', {
      start: apiTime(startMs),
      end: apiTime(endMs),
      ...(match.length === 0 ? {} : { 'match[]': match }),
    });
    return r.data;
  }

  async labelValues(
    name: string,
    startMs: number,
    endMs: number,
    match: readonly string[] = [],
  ): Promise<string[]> {
    const r = await this.get<string[]>(`/api/v1/label/${encodeURIComponent(name)}/values`, {
      start: apiTime(startMs),
      end: apiTime(endMs),
      ...(match.length === 0 ? {} : { 'match[]': match }),
    });
    return r.data;
  }
}
