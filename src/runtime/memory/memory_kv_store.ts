import { compareCodeUnits } from './bucket_listing.js';

/** A stored value and the store revision that wrote it (etcd's mod_revision, Consul's ModifyIndex). */
export interface VersionedValue {
  /** The store's own bytes: readers copy before handing them out. */
  readonly value: Uint8Array;
  /** > 0; strictly increases across all writes of the store. */
  readonly version: number;
}

/** Called synchronously after every change of `key`, with the full store key. */
export type KVChangeListener = (key: string) => void;

/**
 * The shared state behind every in-memory KV client of a process (real `inmemory` store) or of
 * a simulated cluster: versioned values plus change notifications. Clients with different
 * prefixes and the simulator's own wrappers all work on one instance, which is why the
 * primitive operations (versioned read, conditional write) are public: a wrapper can put a
 * delay or a fault between the read and the write of a CAS and still get a correct conflict.
 */
export class MemoryKVStore {
  private readonly entries = new Map<string, VersionedValue>();
  private readonly listeners = new Set<KVChangeListener>();
  private revision = 0;

  read(key: string): VersionedValue | undefined {
    return this.entries.get(key);
  }

  /**
   * Writes `value` (or deletes the key when null) only if the key's current version is
   * `expectedVersion` (0 means "must not exist"). Returns whether it wrote. Deleting a key that
   * does not exist succeeds without a change or a notification.
   */
  compareAndSwap(key: string, expectedVersion: number, value: Uint8Array | null): boolean {
    const current = this.entries.get(key);
    if ((current?.version ?? 0) !== expectedVersion) return false;
    this.write(key, value);
    return true;
  }

  /** Unconditional write or (null) delete. */
  put(key: string, value: Uint8Array | null): void {
    this.write(key, value);
  }

  /** Keys starting with `prefix`, sorted by code unit. */
  keys(prefix: string): string[] {
    const out: string[] = [];
    for (const key of this.entries.keys()) if (key.startsWith(prefix)) out.push(key);
    return out.sort(compareCodeUnits);
  }

  /** Registers a change listener; returns its unsubscribe function. */
  subscribe(listener: KVChangeListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  private write(key: string, value: Uint8Array | null): void {
    if (value === null) {
      if (!this.entries.delete(key)) return;
    } else {
      this.revision += 1;
      this.entries.set(key, { value: value.slice(), version: this.revision });
    }
    // Copy the set: a listener may unsubscribe (or subscribe) while we iterate.
    for (const listener of [...this.listeners]) listener(key);
  }
}
