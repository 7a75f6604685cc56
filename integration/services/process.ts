/**
 * Runs an external service binary (Prometheus, node exporter, ...) as a child process for
 * integration tests: output captured for failure messages, readiness polled over HTTP,
 * and a stop that always reaps the process (SIGTERM, then SIGKILL after a grace period).
 */
import { spawn, type ChildProcess } from 'node:child_process';

export interface ServiceProcess {
  readonly name: string;
  readonly proc: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far (the last 64 KiB). */
  output(): string;
  /** Whether the process has exited. */
  exited(): boolean;
  /**
   * Sends SIGTERM, waits up to `graceMs` for a clean exit, then SIGKILL. Resolves with the
   * exit code or signal name; safe to call more than once and after the process died.
   */
  stop(graceMs?: number): Promise<number | string>;
}

const MAX_OUTPUT = 64 * 1024;

export function spawnService(name: string, bin: string, args: readonly string[]): ServiceProcess {
  const proc = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
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
    // A binary that cannot be started never emits 'exit'.
    proc.once('error', (err) => {
      done = true;
      append(Buffer.from(`spawn ${bin} failed: ${err.message}\n`));
      resolve('spawn-error');
    });
  });
  return {
    name,
    proc,
    output: () => out.slice(-MAX_OUTPUT),
    exited: () => done,
    stop: async (graceMs = 10_000) => {
      if (!done) proc.kill('SIGTERM');
      const timer = setTimeout(() => {
        if (!done) proc.kill('SIGKILL');
      }, graceMs);
      try {
        return await exit;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/**
 * Polls `url` until `ready(status, body)` holds; throws with the service's output when the
 * process exits or `timeoutMs` passes first.
 */
export async function waitUntilReady(
  svc: ServiceProcess,
  url: string,
  timeoutMs: number,
  ready: (status: number, body: string) => boolean = (status) => status === 200,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < end) {
    if (svc.exited()) throw new Error(`${svc.name} exited before ready:\n${svc.output()}`);
    try {
      const res = await fetch(url);
      const body = await res.text();
      if (ready(res.status, body)) return;
      last = `${res.status} ${body.slice(0, 200)}`;
    } catch (err) {
      last = String(err); // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(
    `${svc.name} not ready at ${url} after ${timeoutMs} ms (${last}):\n${svc.output()}`,
  );
}
