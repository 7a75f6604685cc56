/**
 * The blocks storage engine: a per-tenant time-series database in Prometheus's on-disk
 * formats (XOR chunks, WAL, index v2 blocks), byte-compatible with Prometheus so its tools
 * read our data and we read theirs. It reaches disk only through the runtime FileSystem, so
 * the same code runs on a real disk and on the simulator's; it must never import node:fs or
 * read the clock other than through the Env.
 *
 * Landed so far: byte codecs, the XOR chunk and Prometheus's chunk-cutting rules, the WAL
 * (segments, records, checkpoints), the index (format v2), block files and the whole-block
 * writer and reader, and the in-memory head with its WAL. Head compaction into blocks, the
 * out-of-order window, compaction and the merged querier follow (issue 3).
 */
export * from './encoding/index.js';
export * from './chunkenc/index.js';
export * from './wal/index.js';
export * from './record/index.js';
export * from './index/index.js';
export * from './block/index.js';
export * from './head/index.js';
export * from './tools/index.js';
export * from './compact/index.js';
