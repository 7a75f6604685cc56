/**
 * The blocks storage engine: a per-tenant time-series database in Prometheus's on-disk
 * formats (XOR chunks, WAL, index v2 blocks), byte-compatible with Prometheus so its tools
 * read our data and we read theirs. It reaches disk only through the runtime FileSystem, so
 * the same code runs on a real disk and on the simulator's; it must never import node:fs or
 * read the clock other than through the Env.
 *
 * Landed so far: byte codecs, the XOR chunk and Prometheus's chunk-cutting rules, the WAL
 * segment/page/fragment layer, WAL records and checkpoints, the index (format v2), and the
 * block files (chunk segments, meta.json, ULIDs, tombstones). The head, block writer and
 * reader, compaction and the querier follow (issue 3).
 */
export * from './encoding/index.js';
export * from './chunkenc/index.js';
export * from './wal/index.js';
export * from './record/index.js';
export * from './index/index.js';
export * from './block/index.js';
