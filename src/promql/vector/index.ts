/**
 * The alternative, vectorised PromQL engine (selected by `X-PromQL-EngineType: thanos` or
 * `X-MonQL-EngineType: alt`), in the spirit of the Thanos PromQL engine: a query becomes a
 * physical plan of operators that pass batches of consecutive steps as columns (one
 * Float64Array of values and a presence mask per series, labels once per operator) instead
 * of evaluating the tree step by step. Selectors read each series in one forward pass, range
 * functions (over selectors and subqueries) slide a ring buffer of points, aggregations
 * (sum … quantile, topk/bottomk) and vector matching resolve labels once per query; binary
 * and set operators, element-wise functions, histogram_quantile/histogram_fraction, time,
 * scalar, vector, literals and step-invariant subtrees have operators too. Other nodes
 * (label_replace/label_join, sort*, absent*, count_values, limitk/limit_ratio, timestamp,
 * non-constant aggregation parameters, …) fall back to the default engine over the same steps,
 * and the query stats name them (`stats.fallbackNodes`).
 *
 * It must give exactly the default engine's answers (values bit for bit, labels, order,
 * annotations and error texts), so it shares the default engine's preprocessing, query
 * context and function kernels rather than re-implementing them; and, like the rest of
 * PromQL, it never reads the clock, the network or the disk itself.
 */
export {
  DEFAULT_STEPS_BATCH,
  VectorEngine,
  type VectorEngineDeps,
  type VectorEngineOptions,
} from './engine.js';
