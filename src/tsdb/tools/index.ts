/**
 * Operator tools over TSDB data, mirroring promtool: `create-blocks-from openmetrics`
 * (backfill an OpenMetrics file into aligned blocks) and `dump` (print every sample of a
 * database's blocks in promtool's exact format), with the Go formatting and the series
 * selector parser they need. It reaches files only through the runtime FileSystem and takes
 * its clock and randomness from the caller; it must never import node:fs or the real runtime.
 */
export { formatGoDurationMs, formatGoG } from './go_format.js';
export { parseSeriesSelector, SelectorParseError } from './selector.js';
export { readFileChunks } from './read_stream.js';
export {
  blockTable,
  compatibleBlockDuration,
  createBlocksFromOpenMetrics,
  CreateBlocksError,
  DEFAULT_BLOCK_DURATION_MS,
  type CreateBlocksConfig,
  type CreateBlocksDeps,
} from './create_blocks.js';
export {
  dumpSamples,
  formatLabelsPromtool,
  openBlocks,
  type DumpConfig,
  type DumpDeps,
  type DumpSummary,
} from './dump.js';
export {
  parseDurationMs,
  runTsdbTool,
  TSDB_TOOLS_USAGE,
  type TsdbToolDeps,
  type TsdbToolIO,
} from './cli.js';
