import { fork, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';

/**
 * Worker processes for running many simulations side by side (`strata sim --swarm`). Each
 * worker is a child Node process running one module that answers requests over the IPC
 * channel, one request at a time. This lives in the kernel because it is host machinery (the
 * runtime boundary keeps `child_process` here); every simulation inside a worker is as
 * deterministic as one run by `strata sim`.
 */

/** One child process answering requests. */
export interface HostWorker {
  /** Sends a request and resolves with the worker's answer; rejects if the worker dies first. */
  request(payload: unknown): Promise<unknown>;
  /** Ends the worker process. */
  close(): void;
}

interface Envelope {
  id: number;
  ok: boolean;
  payload: unknown;
}

/** Cores available to this process (the default number of swarm workers). */
export function hostCpuCount(): number {
  return availableParallelism();
}

/**
 * Starts `modulePath` as a worker (which must call `serveHostWorkerRequests`). Its stdout is
 * discarded (a worker talks over IPC only); its stderr goes to ours, so a crash is visible.
 */
export function forkHostWorker(modulePath: string, args: readonly string[] = []): HostWorker {
  const child: ChildProcess = fork(modulePath, [...args], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    serialization: 'json',
    execArgv: [...process.execArgv, '--max-semi-space-size=64'],
  });
  let nextId = 1;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let exited: Error | undefined;
  child.on('message', (raw) => {
    const msg = raw as Envelope;
    const waiter = pending.get(msg.id);
    if (waiter === undefined) return;
    pending.delete(msg.id);
    if (msg.ok) waiter.resolve(msg.payload);
    else waiter.reject(new Error(String(msg.payload)));
  });
  const fail = (err: Error): void => {
    exited ??= err;
    for (const w of pending.values()) w.reject(exited);
    pending.clear();
  };
  child.on('exit', (code, signal) =>
    fail(new Error(`worker process exited (${signal ?? `code ${code}`})`)),
  );
  child.on('error', (err) => fail(err));
  return {
    request(payload) {
      if (exited !== undefined) return Promise.reject(exited);
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        child.send({ id, payload }, (err) => {
          if (err !== null && err !== undefined) fail(err);
        });
      });
    },
    close() {
      if (child.connected) child.disconnect();
      if (child.exitCode === null && child.signalCode === null) child.kill();
    },
  };
}

/**
 * Makes this process a worker: every request is handed to `handle` and its result (or
 * error message) sent back. The process stays alive until the parent disconnects.
 */
export function serveHostWorkerRequests(handle: (payload: unknown) => Promise<unknown>): void {
  const send = process.send?.bind(process);
  if (send === undefined) throw new Error('not started as a worker process (no IPC channel)');
  // Requests run one after another: a worker is one simulation at a time.
  let queue = Promise.resolve();
  process.on('message', (raw) => {
    const { id, payload } = raw as { id: number; payload: unknown };
    queue = queue.then(async () => {
      let reply: Envelope;
      try {
        reply = { id, ok: true, payload: await handle(payload) };
      } catch (err) {
        reply = {
          id,
          ok: false,
          payload: err instanceof Error ? (err.stack ?? err.message) : String(err),
        };
      }
      send(reply);
    });
  });
  process.on('disconnect', () => process.exit(0));
}
