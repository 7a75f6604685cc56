/**
 * The default PromQL engine: exact Prometheus 3 semantics for instant and range queries over
 * any `Queryable` — lookback and staleness, offset and `@`, subqueries with step alignment,
 * aggregations, binary operators and vector matching, `__name__` removal (at once, as
 * Prometheus by default, or delayed to the end as its `promql-delayed-name-removal`), the sample
 * limit, timeout and cancellation. The alternative engine reuses its preprocessing and
 * selector helpers and falls back to it for nodes it does not handle.
 *
 * It must never read the wall clock or start timers (the timeout is a deadline checked
 * against the injected Clock), and never mutates the caller's AST.
 */
export { Engine, finishNames, shapeResult, type EngineDeps } from './engine.js';
export { cleanupMetricLabels, mergeSeriesWithSameLabelset } from './merge.js';
export { Evaluator, NodeHelper } from './evaluator.js';
export { QueryContext, type LoadedSeries, type QueryContextConfig } from './context.js';
export { preprocessExpr } from './preprocess.js';
export {
  asStorageError,
  StepEngine,
  normalizeOptions,
  prepareQuery,
  type PreparedQuery,
  type QueryDeps,
} from './prepare.js';
export {
  evalInstantSelector,
  findMinMaxTime,
  loadSeries,
  planSelectors,
  populateSeries,
  withSignal,
  rangePoints,
  selectorTimeRange,
  type EvalStatement,
  type SelectorPlan,
} from './selectors.js';
export type { EMatrix, ESeries } from './types.js';

// The pieces the vectorised engine must compute exactly like this one (label handling,
// grouping, the topk heap, scalar arithmetic), so that it reuses them instead of copying.
export { groupingKey, groupingLabels } from './aggregation.js';
export { scalarBinop, signatureFunction } from './binary.js';
export { byReverseValue, byValue, heapFix, heapPush, type HeapLess } from './heap.js';
export { dropMetadataLabels, keepLabels, matchLabels, setLabel, StaleMarkerTest } from './util.js';
// Re-exported for the vectorised engine's existing imports; they live in the parser, the
// function library and the model.
export { exprType, inspect } from '../parser/index.js';
export { quantile } from '../functions/index.js';
export { formatFloatG } from '../../model/index.js';
