import {
  MemoryBucket,
  RpcError,
  collectSource,
  listObjectNames,
  type Bucket,
  type Clock,
  type ObjectAttributes,
  type UploadSource,
} from '../../src/runtime/index.js';
import type { ServiceLink } from './service_call.js';

export interface SimObjectStoreConfig {
  /** Name for logs and plans, e.g. `blocks`. */
  name: string;
  /** Newly created objects show up in `list` only this long after their upload (eventual listing). */
  listDelayMs: number;
  /** Operations per second the store accepts before answering 'resource_exhausted' (0 = unlimited). */
  opsPerSecond: number;
  /** Token-bucket burst for `opsPerSecond`. */
  burst: number;
}

/** A throttling limit of the store (token bucket). */
export interface ThrottleLimit {
  opsPerSecond: number;
  burst: number;
}

/**
 * One change of the store's content, as the store applied it: what the harness's checks
 * read (uploads and deletes in virtual time), since simulated code never reports it.
 */
export interface ObjectStoreEvent {
  at: number;
  op: 'upload' | 'delete';
  name: string;
  /** Whether the object existed before (an overwrite, or a delete that removed something). */
  existed: boolean;
  /** The uploaded bytes, kept for small documents only (see KEEP_CONTENT). */
  content?: Uint8Array;
  /** The node whose client made the call (absent for calls made outside any node). */
  by?: string;
}

/**
 * Objects whose content the history keeps: markers, blocks' meta.json and the bucket index
 * (small documents the checks read: compaction sources, what the cleaner indexed).
 */
const KEEP_CONTENT = /(?:^|\/)(?:[^/]*mark\.json|meta\.json|bucket-index\.json\.gz)$/;

/** Called after the store applied an upload (the fault schedule's crash-on-upload triggers). */
export type UploadListener = (e: ObjectStoreEvent) => void;

/**
 * The shared object store of a simulated cluster: a MemoryBucket plus the store-side
 * behaviour real object stores show: listings that lag behind uploads, and throttling
 * (S3's SlowDown). Clients reach it through SimBucket. It also keeps the history of every
 * upload and delete, for the checks.
 */
export class SimObjectStore {
  readonly memory: MemoryBucket;
  /** Objects created recently and not yet listable: name → virtual time they become listable. */
  private readonly listableAt = new Map<string, number>();
  private readonly events: ObjectStoreEvent[] = [];
  private readonly uploadListeners = new Set<UploadListener>();
  private tokens: number;
  private tokensAt: number;
  private throttled = 0;
  /** A throttling fault's limit, replacing the configured one while it lasts. */
  private throttle: ThrottleLimit | undefined;

  constructor(
    readonly config: SimObjectStoreConfig,
    private readonly deps: { clock: Clock },
  ) {
    this.memory = new MemoryBucket({ clock: deps.clock }, `sim:${config.name}`);
    this.tokens = config.burst;
    this.tokensAt = deps.clock.now();
  }

  get throttledCount(): number {
    return this.throttled;
  }

  /** Every upload and delete so far, in the order the store applied them. */
  get history(): readonly ObjectStoreEvent[] {
    return this.events;
  }

  /** Calls `listener` after every upload until the returned function is called. */
  onUpload(listener: UploadListener): () => void {
    this.uploadListeners.add(listener);
    return () => this.uploadListeners.delete(listener);
  }

  /**
   * Throttles with `limit` instead of the configured rate (a fault), or back to the
   * configured rate with undefined. The bucket starts full, as after a quiet period.
   */
  setThrottle(limit: ThrottleLimit | undefined): void {
    this.throttle = limit;
    this.tokens = (limit ?? this.config).burst;
    this.tokensAt = this.deps.clock.now();
  }

  /** Takes one token or throws the throttling error. */
  admit(op: string, name: string): void {
    const { opsPerSecond, burst } = this.throttle ?? this.config;
    if (opsPerSecond <= 0) return;
    const now = this.deps.clock.now();
    this.tokens = Math.min(burst, this.tokens + ((now - this.tokensAt) * opsPerSecond) / 1000);
    this.tokensAt = now;
    if (this.tokens < 1) {
      this.throttled++;
      throw new RpcError(
        'resource_exhausted',
        `object store ${this.config.name} throttled ${op} ${name} (SlowDown): over ${opsPerSecond} ops/s`,
      );
    }
    this.tokens -= 1;
  }

  async upload(name: string, data: Uint8Array, by?: string): Promise<void> {
    const existed = await this.memory.exists(name);
    await this.memory.upload(name, data);
    const at = this.deps.clock.now();
    if (!existed && this.config.listDelayMs > 0)
      this.listableAt.set(name, at + this.config.listDelayMs);
    const event: ObjectStoreEvent = {
      at,
      op: 'upload',
      name,
      existed,
      ...(KEEP_CONTENT.test(name) ? { content: data } : {}),
      ...(by === undefined ? {} : { by }),
    };
    this.events.push(event);
    for (const listener of [...this.uploadListeners]) listener(event);
  }

  /** Deleting a missing object succeeds (the Bucket contract; S3 answers 204 either way). */
  async delete(name: string, by?: string): Promise<void> {
    const existed = await this.memory.exists(name);
    await this.memory.delete(name);
    this.listableAt.delete(name);
    this.events.push({
      at: this.deps.clock.now(),
      op: 'delete',
      name,
      existed,
      ...(by === undefined ? {} : { by }),
    });
  }

  /** The listing as of now: objects still inside their list delay are left out. */
  async list(dir: string, recursive: boolean): Promise<string[]> {
    if (this.listableAt.size === 0) return this.memory.list(dir, { recursive });
    const now = this.deps.clock.now();
    for (const [name, at] of [...this.listableAt]) if (at <= now) this.listableAt.delete(name);
    const all = await this.memory.list('', { recursive: true });
    return listObjectNames(
      all.filter((name) => !this.listableAt.has(name)),
      dir,
      recursive,
    );
  }
}

/**
 * A node's client of a SimObjectStore: every call crosses the network to the `objstore`
 * service (latency, partitions, injected transient errors as RpcError 'unavailable',
 * throttling as RpcError 'resource_exhausted') and answers in an event of the calling
 * incarnation.
 */
export class SimBucket implements Bucket {
  readonly name: string;
  private closed = false;

  constructor(
    private readonly store: SimObjectStore,
    private readonly link: ServiceLink,
    /** The calling node, recorded in the store's history. */
    private readonly node?: string,
  ) {
    this.name = `sim:${store.config.name}`;
  }

  get(name: string): Promise<Uint8Array> {
    return this.call('get', name, () => this.store.memory.get(name));
  }

  getRange(name: string, offset: number, length: number): Promise<Uint8Array> {
    return this.call(
      'getRange',
      `${name} @${offset}+${length}`,
      () => this.store.memory.getRange(name, offset, length),
      name,
    );
  }

  exists(name: string): Promise<boolean> {
    return this.call('exists', name, () => this.store.memory.exists(name));
  }

  upload(name: string, data: Uint8Array): Promise<void> {
    const copy = data.slice();
    return this.call(
      'upload',
      `${name} ${copy.length}B`,
      () => this.store.upload(name, copy, this.node),
      name,
    );
  }

  /**
   * Simulated blocks are tiny: the source is read whole on the client, then sent as one
   * upload call (the same network crossing, faults and history as `upload`).
   */
  async uploadStream(name: string, source: UploadSource): Promise<void> {
    const data = await collectSource(name, source);
    return this.upload(name, data);
  }

  delete(name: string): Promise<void> {
    return this.call('delete', name, () => this.store.delete(name, this.node));
  }

  list(dir: string, opts?: { recursive?: boolean }): Promise<string[]> {
    const recursive = opts?.recursive ?? false;
    return this.call(
      'list',
      `${dir}${recursive ? ' recursive' : ''}`,
      () => this.store.list(dir, recursive),
      dir,
    );
  }

  attributes(name: string): Promise<ObjectAttributes> {
    return this.call('attributes', name, () => this.store.memory.attributes(name));
  }

  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }

  private call<T>(op: string, detail: string, run: () => Promise<T>, object = detail): Promise<T> {
    if (this.closed)
      return Promise.reject(new Error(`bucket client ${this.name} is closed (${op} ${object})`));
    return this.link.call(op, detail, () => {
      this.store.admit(op, object);
      return run();
    });
  }
}
