/**
 * The blocks storage engine: a per-tenant time-series database in Prometheus's on-disk
 * formats (XOR chunks, WAL, index v2 blocks), byte-compatible with Prometheus so its tools
 * read our data and we read theirs. It reaches disk only through the runtime FileSystem, so
 * the same code runs on a real disk and on the simulator's; it must never import node:fs or
 * read the clock other than through the Env.
 *
 * Landed so far: byte codecs, the XOR chunk and Prometheus's chunk-cutting rules, the WAL
 * (segments, records, checkpoints), the index (format v2), block files and the whole-block
 * writer and reader, the in-memory head with its WAL, the per-tenant database (head cut into
 * blocks per reference §11, merged querier, retention), block compaction with the leveled
 * planner, the promtool-compatible block tools, and the opt-in out-of-order window
 * (`out_of_order_time_window`: out-of-order head chunks, the write-behind log in `wbl/`,
 * `from-out-of-order` blocks cut after head compaction; docs/tsdb-out-of-order.md).
 */
export * from './encoding/index.js';
export * from './chunkenc/index.js';
export * from './wal/index.js';
export * from './record/index.js';
export * from './index/index.js';
export * from './block/index.js';
export * from './head/index.js';
export * from './db/index.js';
export * from './tools/index.js';
export * from './compact/index.js';
