// CPU-heavy work (PromQL evaluation) kept off the event loop that serves pushes, ring
// heartbeats and every other request. A real process runs jobs on worker threads; the
// simulator and unit tests run them inline, on the same loop, so a simulation stays a pure
// function of its seed. A job is a module's `runJob`: it gets a payload and may call back
// to the side that started it (for storage reads) while it runs.

/** What a job sends back: a value and the ArrayBuffers to move rather than copy. */
export interface JobReply {
  readonly value: unknown;
  readonly transfer?: readonly ArrayBuffer[];
}

/** What a running job can use: the time, and calls back to the side that started it. */
export interface JobContext {
  /** Milliseconds since the Unix epoch (the starting side's clock when inline). */
  now(): number;
  /** Asks the starting side's `onCall`; rejects with its error's message. */
  call(payload: unknown, transfer?: readonly ArrayBuffer[]): Promise<unknown>;
  /**
   * What jobs keep between runs where they run (a worker's, or an inline pool's), by key:
   * reusable buffers, not results. Jobs may run concurrently on an inline pool, so what a
   * job takes from here is its own until it gives it back.
   */
  readonly scratch: Map<string, unknown>;
}

/** A job module's export `runJob`: must not throw for expected failures (encode them). */
export type JobFunction = (payload: unknown, ctx: JobContext) => Promise<JobReply>;

export interface JobSpec {
  /** URL of the module exporting `runJob` (what a worker thread imports). */
  readonly module: string;
  /** The same function, for pools that run jobs inline. */
  readonly run: JobFunction;
  readonly payload: unknown;
  readonly transfer?: readonly ArrayBuffer[];
  /** Answers the job's `ctx.call`s. */
  readonly onCall: (payload: unknown) => Promise<JobReply>;
  /** Stops the job (a worker is terminated) and rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

export interface ComputePool {
  run(spec: JobSpec): Promise<unknown>;
  /** Stops the workers; jobs still running are rejected. */
  close(): Promise<void>;
}

/** Runs every job here and now, on the caller's event loop (simulation, tests). */
export class InlineComputePool implements ComputePool {
  private readonly scratch = new Map<string, unknown>();

  constructor(private readonly now: () => number) {}

  async run(spec: JobSpec): Promise<unknown> {
    spec.signal?.throwIfAborted();
    const ctx: JobContext = {
      now: this.now,
      call: async (payload) => (await spec.onCall(payload)).value,
      scratch: this.scratch,
    };
    return (await spec.run(spec.payload, ctx)).value;
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
