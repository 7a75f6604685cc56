/**
 * The key-value store rings live in (Cortex's kv.Client contract): compare-and-swap updates
 * and watches. Values are opaque bytes; codecs belong to the caller.
 */
export interface KV {
  /** Undefined when the key does not exist. */
  get(key: string, signal?: AbortSignal): Promise<Uint8Array | undefined>;
  /** Keys starting with `prefix`, sorted. */
  list(prefix: string, signal?: AbortSignal): Promise<string[]>;
  /**
   * Reads the current value, calls `update`, and writes its result only if the key was not
   * changed in between; otherwise calls `update` again with the newer value (bounded retries,
   * then rejects). `update` returns the new value, `undefined` to leave the key unchanged, or
   * `null` to delete it.
   */
  cas(
    key: string,
    update: (current: Uint8Array | undefined) => Uint8Array | null | undefined,
    signal?: AbortSignal,
  ): Promise<void>;
  delete(key: string, signal?: AbortSignal): Promise<void>;
  /**
   * Calls `onChange` with the current value and then after every change, until `signal`
   * aborts or `onChange` returns false. Resolves when the watch ends. Rapid changes may be
   * coalesced: the callback always eventually sees the latest value.
   */
  watchKey(
    key: string,
    signal: AbortSignal,
    onChange: (value: Uint8Array | undefined) => boolean,
  ): Promise<void>;
  /** As watchKey, for every key under `prefix`; existing keys are reported first. */
  watchPrefix(
    prefix: string,
    signal: AbortSignal,
    onChange: (key: string, value: Uint8Array | undefined) => boolean,
  ): Promise<void>;
  close(): Promise<void>;
}

/**
 * A process's gossiped (memberlist) store as the KV providers see it; runtime/memberlist's
 * `MemberlistKV` implements it.
 */
export interface MemberlistKVSource {
  /** A client under `prefix` whose values use the registered merge codec `codec`. */
  openClient(prefix: string, codec?: string): KV;
}

/** Which store to open; mirrors Cortex's `kvstore` block (`-ring.store` etc.). */
export type KVSpec =
  | { store: 'inmemory' }
  | { store: 'consul'; host: string }
  | { store: 'etcd'; endpoints: string[]; dialTimeoutMs: number }
  | {
      store: 'memberlist';
      /**
       * The process's memberlist KV (Cortex's `kvstore.MemberlistKV` getter): one per
       * process, shared by every ring using the store. A function so specs stay plain data.
       */
      memberlistKV?: () => MemberlistKVSource;
      /** ID of the merge codec of the values (e.g. `ringDesc`); absent: last-writer-wins bytes. */
      codec?: string;
    }
  | {
      store: 'multi';
      primary: KVSpec;
      secondary: KVSpec;
      /** `-multi.mirror-enabled`: also write every change to the secondary (default false). */
      mirrorEnabled?: boolean;
      /** `-multi.mirror-timeout`: limit on one mirror write (default 2 s). */
      mirrorTimeoutMs?: number;
    };
