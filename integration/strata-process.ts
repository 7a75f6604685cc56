/**
 * Starts the built `strata` binary as a child process on free loopback ports, the way a
 * user runs it, and stops it with a signal. Used by the end-to-end integration tests.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const REPO_ROOT = new URL('..', import.meta.url).pathname;
export const STRATA_BIN = join(REPO_ROOT, 'dist/src/cli/main.js');

/** Builds dist/ when missing or stale (npm test has built it already; this covers direct vitest runs). */
export function ensureBuilt(): void {
  const r = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts/build-if-needed.mjs')], {
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`building dist/ failed:\n${r.stdout}${r.stderr}`);
}

/**
 * Where freePort looks: below the kernel's ephemeral range (32768 and up on Linux), so no
 * outgoing connection of any test can take a port between freePort and the child's bind,
 * and a slice of its own for each vitest worker (and one for the main process), so test
 * files running in parallel never pick the same port. Under load both races happened with
 * the kernel's port 0 (EADDRINUSE). Each test file starts its slice over (vitest isolates
 * modules per file); ports still in use are skipped.
 */
const PORT_BASE = 20_000;
const PORT_SLICE = 1_000;
const PORT_SLICES = 12;
/** The next candidate in this worker's slice (one counter per worker process). */
const portCursor = { next: 0 };

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** A loopback port nothing listens on, not handed out before by this worker (see PORT_BASE). */
export async function freePort(): Promise<number> {
  // The main process (global setup's services) has slice 0, each worker one of the others.
  const pool = Number(process.env['VITEST_POOL_ID'] ?? '0') || 0;
  const slice = pool > 0 ? 1 + ((pool - 1) % (PORT_SLICES - 1)) : 0;
  const first = PORT_BASE + slice * PORT_SLICE;
  for (let tries = 0; tries < PORT_SLICE; tries++) {
    const port = first + (portCursor.next++ % PORT_SLICE);
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port in ${first}..${first + PORT_SLICE - 1}`);
}

export interface StrataProcess {
  readonly url: string;
  readonly httpPort: number;
  /** The internal RPC port (`-server.grpc-listen-port`). */
  readonly grpcPort: number;
  readonly proc: ChildProcess;
  readonly cwd: string;
  output(): string;
  /** Sends the signal and resolves with the exit code (or the signal name). */
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

export interface StartStrataOptions {
  /** Listen on these ports instead of fresh free ones (a restart on the same address). */
  readonly httpPort?: number;
  readonly grpcPort?: number;
  /** Node flags before the script (what `npm start` passes). */
  readonly nodeArgs?: readonly string[];
}

/** Runs `strata <args>` in a fresh temp working directory with its HTTP port on loopback. */
export async function startStrata(
  args: readonly string[],
  opts: StartStrataOptions = {},
): Promise<StrataProcess> {
  const httpPort = opts.httpPort ?? (await freePort());
  const grpcPort = opts.grpcPort ?? (await freePort());
  const cwd = mkdtempSync(join(tmpdir(), 'strata-e2e-'));
  const proc = spawn(
    process.execPath,
    [
      ...(opts.nodeArgs ?? []),
      STRATA_BIN,
      ...args,
      '-server.http-listen-address=127.0.0.1',
      `-server.http-listen-port=${httpPort}`,
      '-server.grpc-listen-address=127.0.0.1',
      `-server.grpc-listen-port=${grpcPort}`,
    ],
    { cwd, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  proc.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | string>((resolve) =>
    proc.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  return {
    url: `http://127.0.0.1:${httpPort}`,
    httpPort,
    grpcPort,
    proc,
    cwd,
    output: () => out,
    stop: async (signal: NodeJS.Signals = 'SIGTERM') => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      return exited;
    },
  };
}

/** Polls `url` until it answers 200 or `deadlineMs` passes; returns the last status seen. */
export async function waitFor200(url: string, deadlineMs: number): Promise<number> {
  const end = Date.now() + deadlineMs;
  let status = 0;
  while (Date.now() < end) {
    try {
      status = (await fetch(url)).status;
      if (status === 200) return status;
    } catch {
      status = 0; // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return status;
}
