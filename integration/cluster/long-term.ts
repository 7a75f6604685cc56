/**
 * Helpers of the long-term storage tests (integration/long-term-*.test.ts): a Strata process
 * with a working directory of the test's choosing, so that it can be stopped, have its
 * local disk wiped and be started again on the same bucket, ports and directory; the
 * command line `npm start` runs; the flags that point it at each object store; and the
 * small polls and readers the tests share.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PlainSeries } from '../../src/distributor/index.js';
import type { AzuriteService } from '../services/azurite.js';
import type { MinioService } from '../services/minio.js';
import type { PrometheusApi } from '../services/prometheus.js';
import { freePort, REPO_ROOT, STRATA_BIN, waitFor200 } from '../strata-process.js';
import { metricValue } from './nodes.js';
import { rawSamples } from './query.js';

/** `npm start`'s Node flags and arguments, read from package.json (paths made absolute). */
export function npmStartCommand(): { nodeArgs: string[]; args: string[] } {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const words = pkg.scripts['start']!.split(/\s+/);
  const script = words.indexOf('dist/src/cli/main.js');
  if (words[0] !== 'node' || script < 1)
    throw new Error(`npm start is not "node [flags] dist/src/cli/main.js ...": ${words.join(' ')}`);
  return {
    nodeArgs: words.slice(1, script),
    args: words
      .slice(script + 1)
      .map((w) =>
        w.replace(/^(-config\.file=)(.*)$/, (_, f: string, p: string) => f + join(REPO_ROOT, p)),
      ),
  };
}

/**
 * Short periods for the read path so a test sees shipped blocks within seconds: the
 * store-gateway syncs and the querier re-reads bucket indexes every 2 s, the compactor's
 * cleaner rewrites them every 2 s, a failed index read is retried after 1 s.
 */
export const FAST_READ_PATH_FLAGS: readonly string[] = [
  '-experimental.tsdb.bucket-store.sync-interval=2s',
  '-compactor.cleanup-interval=2s',
  '-experimental.tsdb.bucket-store.bucket-index.update-on-error-interval=1s',
];

/**
 * Only the 2h block range, so the compactor never merges blocks (its cleaner still indexes
 * them), for tests that count blocks. Its first run comes a random 0–10% of the 1h
 * compaction interval after it starts, which may fall in the middle of a test: the count
 * changes, and under load the fresh merged block can outlast the querier's upload grace
 * (three sync intervals) before its store-gateway has loaded it.
 */
export const NO_MERGING_COMPACTION_FLAGS: readonly string[] = ['-compactor.block-ranges=2h'];

export function s3Flags(minio: MinioService, bucket: string): string[] {
  return [
    '-experimental.tsdb.backend=s3',
    `-experimental.tsdb.s3.endpoint=${minio.endpoint}`,
    `-experimental.tsdb.s3.bucket-name=${bucket}`,
    `-experimental.tsdb.s3.access-key-id=${minio.accessKeyId}`,
    `-experimental.tsdb.s3.secret-access-key=${minio.secretAccessKey}`,
    '-experimental.tsdb.s3.insecure=true',
  ];
}

/** With `STORAGE_EMULATOR_HOST` in the process environment (see StrataServer's `env`). */
export function gcsFlags(bucket: string): string[] {
  return ['-experimental.tsdb.backend=gcs', `-experimental.tsdb.gcs.bucket-name=${bucket}`];
}

export function azureFlags(azurite: AzuriteService, container: string): string[] {
  return [
    '-experimental.tsdb.backend=azure',
    `-experimental.tsdb.azure.account-name=${azurite.accountName}`,
    `-experimental.tsdb.azure.account-key=${azurite.accountKey}`,
    `-experimental.tsdb.azure.container-name=${container}`,
    `-experimental.tsdb.azure.endpoint-suffix=${azurite.endpointSuffix}`,
  ];
}

export interface StrataServerOptions {
  /** Working directory (relative paths of the configuration, e.g. `./data`, land here). */
  readonly cwd?: string;
  /** Extra environment variables (e.g. `STORAGE_EMULATOR_HOST`). */
  readonly env?: Readonly<Record<string, string>>;
  /** Node flags before the script (`npm start`'s). */
  readonly nodeArgs?: readonly string[];
}

const MAX_OUTPUT = 256 * 1024;

/**
 * One `strata` process on loopback ports in a working directory that survives restarts:
 * `restart()` starts it again with the same arguments, ports, directory and environment.
 */
export class StrataServer {
  private proc!: ChildProcess;
  private exited!: Promise<number | string>;
  private out = '';
  /** Output of the previous runs, kept for failure messages. */
  private earlier = '';

  private constructor(
    readonly name: string,
    readonly args: readonly string[],
    readonly cwd: string,
    readonly httpPort: number,
    readonly grpcPort: number,
    private readonly opts: StrataServerOptions,
    private readonly ownsCwd: boolean,
  ) {}

  static async start(
    name: string,
    args: readonly string[],
    opts: StrataServerOptions = {},
  ): Promise<StrataServer> {
    const cwd = opts.cwd ?? (await mkdtemp(join(tmpdir(), `strata-lt-${name}-`)));
    const server = new StrataServer(
      name,
      args,
      cwd,
      await freePort(),
      await freePort(),
      opts,
      opts.cwd === undefined,
    );
    server.spawn();
    return server;
  }

  get url(): string {
    return `http://127.0.0.1:${this.httpPort}`;
  }

  /** The internal RPC address (what rings advertise). */
  get rpcAddress(): string {
    return `127.0.0.1:${this.grpcPort}`;
  }

  /** `./data` of the working directory (where the single-process configuration writes). */
  get dataDir(): string {
    return join(this.cwd, 'data');
  }

  running(): boolean {
    return this.proc.exitCode === null && this.proc.signalCode === null;
  }

  /** This run's output (stdout and stderr). */
  output(): string {
    return this.out;
  }

  /** The last part of every run's output, for failure messages. */
  tail(chars = 8_000): string {
    return `--- ${this.name} ---\n${(this.earlier + this.out).slice(-chars)}`;
  }

  private spawn(): void {
    this.earlier = (this.earlier + this.out).slice(-MAX_OUTPUT);
    this.out = '';
    const proc = spawn(
      process.execPath,
      [
        ...(this.opts.nodeArgs ?? []),
        STRATA_BIN,
        ...this.args,
        '-server.http-listen-address=127.0.0.1',
        `-server.http-listen-port=${this.httpPort}`,
        '-server.grpc-listen-address=127.0.0.1',
        `-server.grpc-listen-port=${this.grpcPort}`,
      ],
      {
        cwd: this.cwd,
        env: { ...process.env, ...this.opts.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const append = (d: Buffer): void => {
      this.out += d.toString();
      if (this.out.length > 2 * MAX_OUTPUT) this.out = this.out.slice(-MAX_OUTPUT);
    };
    proc.stdout?.on('data', append);
    proc.stderr?.on('data', append);
    this.exited = new Promise((resolve) =>
      proc.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
    );
    this.proc = proc;
  }

  /** Waits for `/ready` to answer 200; throws with the output otherwise. */
  async waitReady(timeoutMs = 30_000): Promise<number> {
    const started = Date.now();
    const end = started + timeoutMs;
    let status = 0;
    while (this.running() && Date.now() < end) {
      status = await waitFor200(`${this.url}/ready`, Math.min(1_000, end - Date.now()));
      if (status === 200) return Date.now() - started;
    }
    let why = this.running() ? `/ready answered ${status} after ${timeoutMs} ms` : 'exited';
    if (this.running()) {
      why += `: ${await fetch(`${this.url}/ready`)
        .then((r) => r.text())
        .catch(() => '')}`;
    }
    throw new Error(`${this.name}: ${why}\n${this.tail()}`);
  }

  /** SIGTERM (SIGKILL after `graceMs`); resolves with the exit code or signal. */
  async stop(graceMs = 15_000): Promise<number | string> {
    if (this.running()) this.proc.kill('SIGTERM');
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  /** SIGKILL: no shutdown path runs; resolves with the exit code or signal. */
  async kill(): Promise<number | string> {
    if (this.running()) this.proc.kill('SIGKILL');
    return this.exited;
  }

  /** Starts the stopped process again: same arguments, ports, directory and environment. */
  restart(): void {
    if (this.running()) throw new Error(`${this.name} is still running`);
    this.spawn();
  }

  /** Empties the working directory of a stopped process (its whole local disk). */
  async wipe(): Promise<void> {
    if (this.running()) throw new Error(`${this.name} is still running`);
    await rm(this.cwd, { recursive: true, force: true });
    await mkdir(this.cwd, { recursive: true });
  }

  /** Stops the process and removes the working directory if the server created it. */
  async dispose(): Promise<void> {
    await this.stop();
    if (this.ownsCwd) await rm(this.cwd, { recursive: true, force: true });
  }

  async metrics(): Promise<string> {
    return (await fetch(`${this.url}/metrics`)).text();
  }

  /** Sum of the samples of `name` whose labels include `labels`; undefined when absent. */
  async metric(
    name: string,
    labels: Readonly<Record<string, string>> = {},
  ): Promise<number | undefined> {
    return metricValue(await this.metrics(), name, labels);
  }

  /**
   * `POST /ingester/flush?wait=true` (for the given tenants, all when none): cuts the heads
   * into blocks and ships them before answering.
   */
  async flush(tenants: readonly string[] = []): Promise<void> {
    const qs = new URLSearchParams({ wait: 'true' });
    for (const t of tenants) qs.append('tenant', t);
    const res = await fetch(`${this.url}/ingester/flush?${qs.toString()}`, { method: 'POST' });
    if (res.status !== 204)
      throw new Error(`${this.name}: flush answered ${res.status} ${await res.text()}`);
  }
}

/** Whether one line of `output` (a JSON log) contains every one of `parts`. */
export function logHas(output: string, ...parts: readonly string[]): boolean {
  return output.split('\n').some((line) => parts.every((p) => line.includes(p)));
}

/** Lists what is left under a directory (relative paths, directories end in `/`). */
export async function listTree(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (path: string, rel: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(path, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const r = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) {
        out.push(`${r}/`);
        await walk(join(path, e.name), r);
      } else out.push(r);
    }
  };
  await walk(dir, '');
  return out.sort();
}

/** Polls `check` every `everyMs` until it returns a value other than undefined. */
export async function waitUntil<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs: number,
  context: () => string = () => '',
  everyMs = 250,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown = 'never checked';
  while (Date.now() < end) {
    try {
      const v = await check();
      if (v !== undefined) return v;
      last = 'not yet';
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(
    `${what}: not reached after ${timeoutMs} ms (last: ${String(last)})\n${context()}`,
  );
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const HOUR = 3_600_000;

/**
 * Deterministic synthetic series for a push: `series` series of metric `metric` (label
 * `series="<prefix>NN"`, plus `extra` labels), one sample every `stepMs` in
 * `[fromMs, toMs)`, values distinct per series and timestamp (some fractional, some
 * negative).
 */
export function syntheticSeries(
  metric: string,
  series: number,
  fromMs: number,
  toMs: number,
  stepMs: number,
  extra: Readonly<Record<string, string>> = {},
  prefix = 's',
): PlainSeries[] {
  const out: PlainSeries[] = [];
  for (let s = 0; s < series; s++) {
    const samples: { timestamp: number; value: number }[] = [];
    for (let t = fromMs, i = 0; t < toMs; t += stepMs, i++) {
      samples.push({ timestamp: t, value: syntheticValue(s, i) });
    }
    const labels: [string, string][] = [
      ['__name__', metric],
      ...Object.entries(extra),
      ['series', `${prefix}${String(s).padStart(2, '0')}`],
    ];
    labels.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    out.push({ labels, samples });
  }
  return out;
}

export function syntheticValue(series: number, i: number): number {
  if (i % 97 === 13) return -(series + i / 8);
  return series * 100_000 + i + (i % 7 === 3 ? 0.25 : 0);
}

/** Per `series` label, the expected `[timestamp, value]` list of pushed synthetic series. */
export function expectedSamples(pushed: readonly PlainSeries[]): Map<string, [number, number][]> {
  const out = new Map<string, [number, number][]>();
  for (const s of pushed) {
    const key = s.labels.find(([n]) => n === 'series')?.[1] ?? '';
    const list = out.get(key) ?? [];
    for (const p of s.samples ?? []) list.push([p.timestamp, p.value]);
    list.sort((a, b) => a[0] - b[0]);
    out.set(key, list);
  }
  return out;
}

/**
 * Every raw sample of `selector` in `[fromMs, toMs]`, per `series` label, through the query
 * API (an instant query of a range selector at `toMs`).
 */
export function readBack(
  api: PrometheusApi,
  selector: string,
  fromMs: number,
  toMs: number,
): Promise<Map<string, [number, number][]>> {
  return rawSamples(api, selector, toMs, toMs - fromMs + 1, 'series');
}

/**
 * What differs between expected and found samples: missing, changed, duplicated (the same
 * timestamp twice) and unexpected samples, the first few of each.
 */
export function sampleDiff(
  expected: ReadonlyMap<string, readonly (readonly [number, number])[]>,
  found: ReadonlyMap<string, readonly (readonly [number, number])[]>,
  limit = 5,
): string[] {
  const problems: string[] = [];
  const keys = new Set([...expected.keys(), ...found.keys()]);
  let missing = 0;
  let extra = 0;
  let changed = 0;
  let duplicated = 0;
  const note = (s: string): void => {
    if (problems.length < limit) problems.push(s);
  };
  for (const k of keys) {
    const want = new Map(expected.get(k) ?? []);
    const seen = new Set<number>();
    for (const [t, v] of found.get(k) ?? []) {
      if (seen.has(t)) {
        duplicated++;
        note(`${k}@${t} returned twice`);
      }
      seen.add(t);
      const w = want.get(t);
      if (w === undefined) {
        extra++;
        note(`${k}@${t}=${v} was never pushed`);
      } else if (!Object.is(w, v) && !(Number.isNaN(w) && Number.isNaN(v))) {
        changed++;
        note(`${k}@${t}: ${v}, pushed ${w}`);
      }
    }
    for (const [t, v] of want) {
      if (!seen.has(t)) {
        missing++;
        note(`${k}@${t}=${v} missing`);
      }
    }
  }
  if (problems.length === 0) return [];
  return [
    `${missing} missing, ${changed} changed, ${duplicated} duplicated, ${extra} unexpected`,
    ...problems,
  ];
}

/** `hours` hours ending `endHoursAgo` hours before `now`, on whole minutes. */
export function pastWindow(
  now: number,
  hours: number,
  endHoursAgo: number,
): { from: number; to: number } {
  const to = Math.floor((now - endHoursAgo * HOUR) / 60_000) * 60_000;
  return { from: to - hours * HOUR, to };
}
