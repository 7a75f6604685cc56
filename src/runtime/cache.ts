/**
 * A best-effort cache: misses, evictions and failed stores are normal and never errors the
 * caller must handle (failures are logged and counted by the implementation).
 */
export interface Cache {
  readonly name: string;
  /** The hits among `keys`; missing keys are absent from the map. */
  getMulti(keys: readonly string[], signal?: AbortSignal): Promise<Map<string, Uint8Array>>;
  /** Stores entries with a time to live in milliseconds (asynchronous, may be dropped). */
  setMulti(entries: ReadonlyMap<string, Uint8Array>, ttlMs: number): void;
  delete(key: string): Promise<void>;
  close(): Promise<void>;
}

/** Which cache to open; mirrors the index/chunks/metadata cache `backend` choice. */
export type CacheSpec =
  | { backend: 'inmemory'; maxSizeBytes: number }
  | {
      backend: 'memcached';
      addresses: string[];
      timeoutMs: number;
      maxIdleConnections: number;
      maxAsyncConcurrency: number;
      maxAsyncBufferSize: number;
      maxGetMultiConcurrency: number;
      maxGetMultiBatchSize: number;
      maxItemSize: number;
      /** How often `dns+`/`dnssrv+` addresses are looked up again; the client's default when absent. */
      dnsUpdateIntervalMs?: number;
    };
