/**
 * PromQL: the parser (typed AST, Prometheus's error texts), the default engine with exact
 * Prometheus semantics, the vectorised alternative engine, the function library, the
 * printer (format_query) and the JSON tree (parse_query), all over the small `Queryable`
 * storage interface so they work over memory, one TSDB, or ingesters and store-gateways.
 *
 * It must never read the clock, the network or the disk itself: storage comes in as a
 * Queryable, cancellation as an AbortSignal, time as parameters.
 */
export * from './annotations.js';
export * from './errors.js';
export * from './function_call.js';
export { MemoryStorage } from './memory_storage.js';
export * from './parser/ast.js';
export * from './query.js';
export * from './storage.js';
export * from './value.js';
