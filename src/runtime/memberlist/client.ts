import type { KV } from '../kv.js';
import { MemoryKV } from '../memory/index.js';
import type { MemoryKVStore } from '../memory/index.js';

/** What a client needs from the process's memberlist KV. */
export interface MemberlistKVCore {
  readonly view: MemoryKVStore;
  cas(
    key: string,
    codecId: string,
    update: (current: Uint8Array | undefined) => Uint8Array | null | undefined,
    signal: AbortSignal | undefined,
  ): Promise<void>;
  delete(key: string, signal: AbortSignal | undefined): Promise<void>;
  /** A client stops being notified of shutdown once closed. */
  forget(client: MemberlistKVClient): void;
}

/**
 * One prefix-scoped KV client of the process's gossiped store (dskit's `memberlist.Client`):
 * reads and watches see this member's merged state (tombstones hidden), writes merge locally
 * and are gossiped. Eventually consistent: a peer's write shows up here once gossip brings it.
 */
export class MemberlistKVClient implements KV {
  private readonly reader: MemoryKV;
  private closed = false;

  constructor(
    private readonly config: { prefix: string; codecId: string },
    private readonly core: MemberlistKVCore,
  ) {
    this.reader = new MemoryKV({ prefix: config.prefix }, { store: core.view });
  }

  get codecId(): string {
    return this.config.codecId;
  }

  get(key: string, signal?: AbortSignal): Promise<Uint8Array | undefined> {
    return this.reader.get(key, signal);
  }

  list(prefix: string, signal?: AbortSignal): Promise<string[]> {
    return this.reader.list(prefix, signal);
  }

  cas(
    key: string,
    update: (current: Uint8Array | undefined) => Uint8Array | null | undefined,
    signal?: AbortSignal,
  ): Promise<void> {
    if (this.closed) return Promise.reject(this.closedError());
    return this.core.cas(this.config.prefix + key, this.config.codecId, update, signal);
  }

  delete(key: string, signal?: AbortSignal): Promise<void> {
    if (this.closed) return Promise.reject(this.closedError());
    return this.core.delete(this.config.prefix + key, signal);
  }

  watchKey(
    key: string,
    signal: AbortSignal,
    onChange: (value: Uint8Array | undefined) => boolean,
  ): Promise<void> {
    return this.reader.watchKey(key, signal, onChange);
  }

  watchPrefix(
    prefix: string,
    signal: AbortSignal,
    onChange: (key: string, value: Uint8Array | undefined) => boolean,
  ): Promise<void> {
    return this.reader.watchPrefix(prefix, signal, onChange);
  }

  /** Ends this client's watches; the shared memberlist KV keeps running. */
  async close(): Promise<void> {
    this.closed = true;
    this.core.forget(this);
    await this.reader.close();
  }

  private closedError(): Error {
    return new Error(
      `memberlist kv client (prefix ${JSON.stringify(this.config.prefix)}) is closed`,
    );
  }
}
