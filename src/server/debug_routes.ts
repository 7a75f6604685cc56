/**
 * Profiling endpoints at Go's paths, so `go tool pprof http://host/debug/pprof/profile` and
 * `.../debug/fgprof` work against Strata as they do against Cortex. Profiles come from the
 * injected profiler (the real runtime's, built on node:inspector); the Go-runtime-only
 * profiles answer 501 and say which profiles exist instead.
 */
import type { Response } from 'express';
import { isAbortError } from '../runtime/index.js';
import { BadDataError, CanceledError, ConflictError, NotImplementedError } from './errors.js';
import { escapeHtml, htmlPage } from './html.js';
import { type HttpServer, writeBody } from './http_server.js';
import { firstQueryValue } from './status_routes.js';

export interface Profiler {
  /** A gzipped pprof profile of `ms` milliseconds; `wall` includes off-CPU (idle) time. */
  captureCpuProfile(ms: number, opts: { wall: boolean }, signal?: AbortSignal): Promise<Uint8Array>;
  /** A gzipped pprof heap profile (sampled in-use objects and bytes). */
  captureHeapProfile(): Promise<Uint8Array>;
}

export interface DebugRoutesDeps {
  readonly profiler: Profiler;
}

/** Go's default profile duration. */
export const DEFAULT_PROFILE_SECONDS = 30;
/** Longest profile we take in one request; Go has no cap, but an hour-long request is a mistake. */
export const MAX_PROFILE_SECONDS = 3600;

const MODULE = 'server';

/** Go runtime profiles Node has no counterpart for, and what each one is in Go. */
const GO_ONLY_PROFILES: Readonly<Record<string, string>> = {
  trace: "Go's execution tracer",
  goroutine: 'stack traces of all goroutines',
  block: 'Go blocking profile (goroutines waiting on synchronisation primitives)',
  mutex: 'Go mutex contention profile',
  allocs: 'Go allocation profile since program start',
  threadcreate: 'Go OS-thread creation profile',
};

const AVAILABLE =
  '/debug/pprof/profile?seconds=N (CPU), /debug/fgprof?seconds=N (wall clock: on- and off-CPU), /debug/pprof/heap (heap)';

export function registerDebugRoutes(server: HttpServer, deps: DebugRoutesDeps): void {
  // The inspector runs one CPU profile at a time (Go's runtime too); a second request gets a
  // clear 409 instead of the profiler's internal error.
  let cpuProfileRunning = false;
  const captureCpu = async (
    ms: number,
    wall: boolean,
    signal: AbortSignal,
  ): Promise<Uint8Array> => {
    if (cpuProfileRunning) {
      throw new ConflictError(
        'a CPU or wall-clock profile is already being captured; retry when it has finished',
      );
    }
    cpuProfileRunning = true;
    try {
      return await deps.profiler.captureCpuProfile(ms, { wall }, signal);
    } finally {
      cpuProfileRunning = false;
    }
  };

  server.registerRoute({
    methods: ['GET'],
    path: '/debug/pprof/',
    module: MODULE,
    description: 'Profiling index',
    tenant: false,
    handler: (_req, res) => writeBody(res, 200, 'text/html; charset=utf-8', renderPprofIndex()),
  });

  server.registerRoute({
    methods: ['GET'],
    path: '/debug/pprof/profile',
    module: MODULE,
    description: `CPU profile in pprof format (?seconds=N, default ${DEFAULT_PROFILE_SECONDS})`,
    tenant: false,
    handler: async (req, res) => {
      const seconds = parseSeconds(firstQueryValue(req, 'seconds'));
      await sendProfile(res, 'profile', (signal) => captureCpu(seconds * 1000, false, signal));
    },
  });

  server.registerRoute({
    methods: ['GET'],
    path: '/debug/fgprof',
    module: MODULE,
    description: `Wall-clock profile covering on-CPU and off-CPU time, pprof format (?seconds=N, default ${DEFAULT_PROFILE_SECONDS})`,
    tenant: false,
    handler: async (req, res) => {
      const seconds = parseSeconds(firstQueryValue(req, 'seconds'));
      const format = firstQueryValue(req, 'format');
      if (format !== undefined && format !== '' && format !== 'pprof') {
        throw new NotImplementedError(
          `fgprof format "${format}" is not supported: only format=pprof is available`,
        );
      }
      await sendProfile(res, 'profile', (signal) => captureCpu(seconds * 1000, true, signal));
    },
  });

  server.registerRoute({
    methods: ['GET'],
    path: '/debug/pprof/heap',
    module: MODULE,
    description: 'Heap profile in pprof format (sampled in-use objects and bytes)',
    tenant: false,
    handler: async (_req, res) => {
      await sendProfile(res, 'heap', () => deps.profiler.captureHeapProfile());
    },
  });

  for (const [name, what] of Object.entries(GO_ONLY_PROFILES)) {
    server.registerRoute({
      methods: ['GET'],
      path: `/debug/pprof/${name}`,
      module: MODULE,
      description: `Not available (${what} exists only in the Go runtime)`,
      tenant: false,
      hidden: true,
      handler: () => {
        throw new NotImplementedError(
          `/debug/pprof/${name} is not available: it is the ${what}, which exists only in the Go runtime and has no Node.js equivalent. Available profiles: ${AVAILABLE}`,
        );
      },
    });
  }
}

/**
 * `seconds` as Go's pprof handler reads it, but strict: absent means the default, anything
 * else must be a whole number of seconds in 1..MAX_PROFILE_SECONDS.
 */
export function parseSeconds(raw: string | undefined): number {
  if (raw === undefined || raw === '') return DEFAULT_PROFILE_SECONDS;
  if (!/^\d+$/.test(raw)) {
    throw new BadDataError(
      `invalid seconds "${raw}": expected a whole number of seconds between 1 and ${MAX_PROFILE_SECONDS}`,
    );
  }
  const n = Number(raw);
  if (n < 1 || n > MAX_PROFILE_SECONDS) {
    throw new BadDataError(
      `invalid seconds "${raw}": expected a whole number of seconds between 1 and ${MAX_PROFILE_SECONDS}`,
    );
  }
  return n;
}

async function sendProfile(
  res: Response,
  filename: string,
  capture: (signal: AbortSignal) => Promise<Uint8Array>,
): Promise<void> {
  // Stop profiling when the client goes away instead of holding the profiler for nothing.
  const controller = new AbortController();
  const onClose = (): void => {
    if (!res.writableEnded) controller.abort();
  };
  res.once('close', onClose);
  let profile: Uint8Array;
  try {
    profile = await capture(controller.signal);
  } catch (err) {
    // Once the client is gone nobody reads the outcome; whatever ended the capture (the abort,
    // or the profiler shutting down with the process) is a cancellation, not a server bug.
    if (isAbortError(err) || controller.signal.aborted) {
      throw new CanceledError('profile canceled: the client closed the connection');
    }
    throw err;
  } finally {
    res.off('close', onClose);
  }
  res.setHeader('Content-Disposition', `attachment; filename="${filename}"`);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  writeBody(res, 200, 'application/octet-stream', profile);
}

function renderPprofIndex(): string {
  const available = [
    ['profile', `CPU profile; add ?seconds=N (default ${DEFAULT_PROFILE_SECONDS}).`],
    ['heap', 'Sampled in-use heap (objects and bytes).'],
  ]
    .map(
      ([name, what]) =>
        `<li><a href="/debug/pprof/${name}">${name}</a> — ${escapeHtml(what ?? '')}</li>`,
    )
    .join('\n');
  const goOnly = Object.entries(GO_ONLY_PROFILES)
    .map(([name, what]) => `<li><code>${name}</code> — ${escapeHtml(what)}</li>`)
    .join('\n');
  return htmlPage(
    '/debug/pprof/',
    `<h1>/debug/pprof/</h1>
<p>Profiles of this Node.js process in pprof format: <code>go tool pprof http://HOST/debug/pprof/profile?seconds=30</code>.</p>
<ul>
${available}
<li><a href="/debug/fgprof">/debug/fgprof</a> — wall-clock profile (on- and off-CPU time); add ?seconds=N (default ${DEFAULT_PROFILE_SECONDS}).</li>
</ul>
<p>Go-runtime profiles with no Node.js equivalent (they answer 501):</p>
<ul>
${goOnly}
</ul>`,
  );
}
