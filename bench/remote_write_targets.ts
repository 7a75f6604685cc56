// The two systems the remote-write benchmark drives, each started fresh as a child process
// on free loopback ports with its own temp data directory: Strata's single binary (the
// built CLI with docs/configuration/single-process.yaml) and Debian's Prometheus with its
// remote-write receiver. Also reads a process's CPU time and resident memory from /proc, so
// what is measured is the target alone, not this load generator.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVER_NODE_FLAGS } from '../src/cli/index.js';

export const PROMETHEUS_BIN = '/usr/bin/prometheus';

export type SystemName = 'strata' | 'prometheus';
export const SYSTEM_NAMES: readonly SystemName[] = ['strata', 'prometheus'];

export interface Target {
  readonly system: SystemName;
  readonly pid: number;
  /** Remote-write URL. */
  readonly pushUrl: string;
  /** Everything the process printed (the last 64 KiB), for failure messages. */
  output(): string;
  /** SIGTERM, SIGKILL after `graceMs`; removes the data directory. Resolves with the exit. */
  stop(graceMs?: number): Promise<number | string>;
}

export interface StrataTargetOptions {
  /** Extra node flags for the Strata process (e.g. `--cpu-prof`). */
  readonly nodeArgs?: readonly string[];
}

const MAX_OUTPUT = 64 * 1024;

/** The repository root whether this runs from bench/*.ts (vitest) or dist/bench/*.js. */
export function repoRoot(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  return here.endsWith(join('dist', 'bench')) ? join(here, '..', '..') : join(here, '..');
}

export function strataMain(): string {
  return join(repoRoot(), 'dist', 'src', 'cli', 'main.js');
}

/** Builds dist/ when missing or stale, as `npm run bench` does (for runs under vitest). */
export function ensureStrataBuilt(): void {
  const r = spawnSync(process.execPath, [join(repoRoot(), 'scripts', 'build-if-needed.mjs')], {
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`building dist/ failed:\n${r.stdout}${r.stderr}`);
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Spawns `bin` in `cwd`, keeping its last output; `stop` removes `cwd`. */
export function launch(
  system: SystemName,
  bin: string,
  args: readonly string[],
  cwd: string,
  pushUrl: string,
): Target & { proc: ChildProcess; exited(): boolean } {
  const proc = spawn(bin, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const append = (d: Buffer): void => {
    out += d.toString();
    if (out.length > 2 * MAX_OUTPUT) out = out.slice(-MAX_OUTPUT);
  };
  proc.stdout?.on('data', append);
  proc.stderr?.on('data', append);
  let done = false;
  const exit = new Promise<number | string>((resolve) => {
    proc.once('exit', (code, signal) => {
      done = true;
      resolve(code ?? signal ?? 'unknown');
    });
    proc.once('error', (err) => {
      done = true;
      append(Buffer.from(`spawn ${bin} failed: ${err.message}\n`));
      resolve('spawn-error');
    });
  });
  return {
    system,
    proc,
    pid: proc.pid ?? -1,
    pushUrl,
    output: () => out.slice(-MAX_OUTPUT),
    exited: () => done,
    stop: async (graceMs = 30_000) => {
      if (!done) proc.kill('SIGTERM');
      const timer = setTimeout(() => {
        if (!done) proc.kill('SIGKILL');
      }, graceMs);
      try {
        return await exit;
      } finally {
        clearTimeout(timer);
        rmSync(cwd, { recursive: true, force: true });
      }
    },
  };
}

/** Polls `url` until it answers 200; stops the process and throws when it does not. */
export async function waitReady(
  t: Target & { exited(): boolean },
  url: string,
  timeoutMs: number,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < end) {
    if (t.exited()) throw new Error(`${t.system} exited before ready:\n${t.output()}`);
    try {
      const res = await fetch(url);
      last = `${res.status} ${(await res.text()).slice(0, 200)}`;
      if (res.status === 200) return;
    } catch (err) {
      last = String(err); // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  await t.stop();
  throw new Error(
    `${t.system} not ready at ${url} after ${timeoutMs} ms (${last}):\n${t.output()}`,
  );
}

/**
 * Strata's single binary as a user runs it (`strata serve` with the single-process config),
 * in a temp working directory (the config's relative ./data paths land there), the TSDB in
 * `<tmp>/tsdb`, and the per-tenant ingestion rate limit lifted (its default, 25k samples/s,
 * would measure the limiter).
 */
export async function startStrata(opts: StrataTargetOptions = {}): Promise<Target> {
  const main = strataMain();
  if (!existsSync(main)) throw new Error(`${main} is missing: run npm run build first`);
  const httpPort = await freePort();
  const grpcPort = await freePort();
  const cwd = mkdtempSync(join(tmpdir(), 'strata-rwbench-'));
  const t = launch(
    'strata',
    process.execPath,
    [
      // As `npm start` and the `strata` bin run it.
      ...SERVER_NODE_FLAGS,
      ...(opts.nodeArgs ?? []),
      main,
      'serve',
      `-config.file=${join(repoRoot(), 'docs', 'configuration', 'single-process.yaml')}`,
      `-experimental.tsdb.dir=${join(cwd, 'tsdb')}`,
      '-server.http-listen-address=127.0.0.1',
      `-server.http-listen-port=${httpPort}`,
      '-server.grpc-listen-address=127.0.0.1',
      `-server.grpc-listen-port=${grpcPort}`,
      '-distributor.ingestion-rate-limit=1000000000',
      '-distributor.ingestion-burst-size=1000000000',
      '-log.level=warn',
    ],
    cwd,
    `http://127.0.0.1:${httpPort}/api/v1/push`,
  );
  await waitReady(t, `http://127.0.0.1:${httpPort}/ready`, 60_000);
  return t;
}

/**
 * Debian's Prometheus scraping nothing: by default with `--web.enable-remote-write-receiver`
 * and an empty TSDB; `blocksFrom` seeds its TSDB with a copy of that directory's blocks;
 * `bin` runs another Prometheus binary (the query benchmark's Prometheus 3) the same way.
 */
export async function startPrometheus(
  opts: { args?: readonly string[]; blocksFrom?: string; bin?: string } = {},
): Promise<Target> {
  const bin = opts.bin ?? PROMETHEUS_BIN;
  if (!existsSync(bin)) throw new Error(`${bin} is missing`);
  const port = await freePort();
  const cwd = mkdtempSync(join(tmpdir(), 'prom-rwbench-'));
  if (opts.blocksFrom !== undefined) {
    cpSync(opts.blocksFrom, join(cwd, 'data'), { recursive: true });
  }
  const config = join(cwd, 'prometheus.yml');
  writeFileSync(config, 'global:\n  scrape_interval: 15s\nscrape_configs: []\n');
  const t = launch(
    'prometheus',
    bin,
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(cwd, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      ...(opts.args ?? ['--web.enable-remote-write-receiver']),
      '--log.level=warn',
    ],
    cwd,
    `http://127.0.0.1:${port}/api/v1/write`,
  );
  await waitReady(t, `http://127.0.0.1:${port}/-/ready`, 60_000);
  return t;
}

export function startTarget(system: SystemName, strata: StrataTargetOptions): Promise<Target> {
  return system === 'strata' ? startStrata(strata) : startPrometheus();
}

/** CPU time and resident memory of one process (all its threads), from /proc. */
export interface ProcSample {
  /** utime + stime, seconds. */
  readonly cpuSeconds: number;
  /** VmRSS, bytes. */
  readonly rssBytes: number;
}

/** Clock ticks per second of /proc/<pid>/stat times (`getconf CLK_TCK`; 100 on Linux). */
function clockTicks(): number {
  const r = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  const n = Number(r.stdout.trim());
  return Number.isFinite(n) && n > 0 ? n : 100;
}

export class ProcReader {
  private readonly ticks = clockTicks();

  constructor(readonly pid: number) {}

  sample(): ProcSample {
    const stat = readFileSync(`/proc/${this.pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces: fields are counted after its closing ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    const status = readFileSync(`/proc/${this.pid}/status`, 'utf8');
    const rss = /^VmRSS:\s+(\d+) kB$/m.exec(status);
    if (rss === null || !Number.isFinite(utime) || !Number.isFinite(stime)) {
      throw new Error(`cannot read CPU/RSS of pid ${this.pid} from /proc`);
    }
    return { cpuSeconds: (utime + stime) / this.ticks, rssBytes: Number(rss[1]) * 1024 };
  }
}
