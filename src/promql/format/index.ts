/**
 * Text and tree renderings of a parsed PromQL expression, exactly as Prometheus 3 produces
 * them: `exprToString` is the one-line `String()` of promql/parser/printer.go (error
 * messages, logs, rule output), `prettify` is the multi-line `format_query` output of
 * prettier.go, and `exprToJSON` is the tree `/api/v1/parse_query` returns
 * (web/api/v1/translate_ast.go). Clients compare these byte for byte with Prometheus, so
 * formatting rules, quirks included, follow the Go code rather than taste.
 *
 * It must never parse, evaluate or change a tree: it only reads the AST the parser built.
 */
export { exprToJSON, type JSONObject, type JSONValue } from './json_tree.js';
export { MAX_CHARACTERS_PER_LINE, prettify, type PrettifyOptions } from './prettier.js';
export { exprToString } from './printer.js';
