// The function signature table of PromQL, as Prometheus 3.14's promql/parser/functions.go
// declares it (min_of/max_of, new in 3.14's test scripts, are taken as scalar functions): argument types, how many extra arguments a variadic function takes (-1 for
// unlimited), the return type, and whether Prometheus gates the function behind
// `--enable-feature=promql-experimental-functions`. The parser type-checks calls against it;
// the engine looks implementations up by the same names.
import type { ValueType } from './ast.js';

export interface FunctionSignature {
  readonly name: string;
  readonly argTypes: readonly ValueType[];
  /** 0: exactly argTypes; n > 0: up to n more of the last type may be omitted/added; -1: unlimited. */
  readonly variadic: number;
  readonly returnType: ValueType;
  readonly experimental: boolean;
}

function fn(
  name: string,
  argTypes: readonly ValueType[],
  variadic: number,
  returnType: ValueType,
  experimental = false,
): FunctionSignature {
  return Object.freeze({
    name,
    argTypes: Object.freeze([...argTypes]),
    variadic,
    returnType,
    experimental,
  });
}

/** Every PromQL function by name. */
export const FUNCTIONS: ReadonlyMap<string, FunctionSignature> = new Map(
  [
    fn('abs', ['vector'], 0, 'vector'),
    fn('absent', ['vector'], 0, 'vector'),
    fn('absent_over_time', ['matrix'], 0, 'vector'),
    fn('acos', ['vector'], 0, 'vector'),
    fn('acosh', ['vector'], 0, 'vector'),
    fn('asin', ['vector'], 0, 'vector'),
    fn('asinh', ['vector'], 0, 'vector'),
    fn('atan', ['vector'], 0, 'vector'),
    fn('atanh', ['vector'], 0, 'vector'),
    fn('avg_over_time', ['matrix'], 0, 'vector'),
    fn('ceil', ['vector'], 0, 'vector'),
    fn('changes', ['matrix'], 0, 'vector'),
    fn('clamp', ['vector', 'scalar', 'scalar'], 0, 'vector'),
    fn('clamp_max', ['vector', 'scalar'], 0, 'vector'),
    fn('clamp_min', ['vector', 'scalar'], 0, 'vector'),
    fn('cos', ['vector'], 0, 'vector'),
    fn('cosh', ['vector'], 0, 'vector'),
    fn('count_over_time', ['matrix'], 0, 'vector'),
    fn('day_of_month', ['vector'], 1, 'vector'),
    fn('day_of_week', ['vector'], 1, 'vector'),
    fn('day_of_year', ['vector'], 1, 'vector'),
    fn('days_in_month', ['vector'], 1, 'vector'),
    fn('deg', ['vector'], 0, 'vector'),
    fn('delta', ['matrix'], 0, 'vector'),
    fn('deriv', ['matrix'], 0, 'vector'),
    fn('double_exponential_smoothing', ['matrix', 'scalar', 'scalar'], 0, 'vector', true),
    fn('end', [], 0, 'scalar', true),
    fn('exp', ['vector'], 0, 'vector'),
    fn('first_over_time', ['matrix'], 0, 'vector', true),
    fn('floor', ['vector'], 0, 'vector'),
    fn('histogram_avg', ['vector'], 0, 'vector'),
    fn('histogram_count', ['vector'], 0, 'vector'),
    fn('histogram_fraction', ['scalar', 'scalar', 'vector'], 0, 'vector'),
    fn('histogram_quantile', ['scalar', 'vector'], 0, 'vector'),
    fn('histogram_quantiles', ['vector', 'string', 'scalar', 'scalar'], 9, 'vector', true),
    fn('histogram_stddev', ['vector'], 0, 'vector'),
    fn('histogram_stdvar', ['vector'], 0, 'vector'),
    fn('histogram_sum', ['vector'], 0, 'vector'),
    fn('hour', ['vector'], 1, 'vector'),
    fn('idelta', ['matrix'], 0, 'vector'),
    fn('increase', ['matrix'], 0, 'vector'),
    fn('info', ['vector', 'vector'], 1, 'vector', true),
    fn('integral', ['matrix', 'scalar'], 1, 'vector', true),
    fn('irate', ['matrix'], 0, 'vector'),
    fn('label_join', ['vector', 'string', 'string', 'string'], -1, 'vector'),
    fn('label_replace', ['vector', 'string', 'string', 'string', 'string'], 0, 'vector'),
    fn('last_over_time', ['matrix'], 0, 'vector'),
    fn('ln', ['vector'], 0, 'vector'),
    fn('log10', ['vector'], 0, 'vector'),
    fn('log2', ['vector'], 0, 'vector'),
    fn('max_of', ['scalar', 'scalar'], 0, 'scalar'),
    fn('min_of', ['scalar', 'scalar'], 0, 'scalar'),
    fn('mad_over_time', ['matrix'], 0, 'vector', true),
    fn('max_over_time', ['matrix'], 0, 'vector'),
    fn('min_over_time', ['matrix'], 0, 'vector'),
    fn('minute', ['vector'], 1, 'vector'),
    fn('month', ['vector'], 1, 'vector'),
    fn('pi', [], 0, 'scalar'),
    fn('predict_linear', ['matrix', 'scalar'], 0, 'vector'),
    fn('present_over_time', ['matrix'], 0, 'vector'),
    fn('quantile_over_time', ['scalar', 'matrix'], 0, 'vector'),
    fn('rad', ['vector'], 0, 'vector'),
    fn('range', [], 0, 'scalar', true),
    fn('rate', ['matrix'], 0, 'vector'),
    fn('resets', ['matrix'], 0, 'vector'),
    fn('round', ['vector', 'scalar'], 1, 'vector'),
    fn('scalar', ['vector'], 0, 'scalar'),
    fn('sgn', ['vector'], 0, 'vector'),
    fn('sin', ['vector'], 0, 'vector'),
    fn('sinh', ['vector'], 0, 'vector'),
    fn('sort', ['vector'], 0, 'vector'),
    fn('sort_by_label', ['vector', 'string'], -1, 'vector', true),
    fn('sort_by_label_desc', ['vector', 'string'], -1, 'vector', true),
    fn('sort_desc', ['vector'], 0, 'vector'),
    fn('sqrt', ['vector'], 0, 'vector'),
    fn('start', [], 0, 'scalar', true),
    fn('stddev_over_time', ['matrix'], 0, 'vector'),
    fn('stdvar_over_time', ['matrix'], 0, 'vector'),
    fn('step', [], 0, 'scalar', true),
    fn('sum_over_time', ['matrix'], 0, 'vector'),
    fn('tan', ['vector'], 0, 'vector'),
    fn('tanh', ['vector'], 0, 'vector'),
    fn('time', [], 0, 'scalar'),
    fn('timestamp', ['vector'], 0, 'vector'),
    fn('ts_of_first_over_time', ['matrix'], 0, 'vector', true),
    fn('ts_of_last_over_time', ['matrix'], 0, 'vector', true),
    fn('ts_of_max_over_time', ['matrix'], 0, 'vector', true),
    fn('ts_of_min_over_time', ['matrix'], 0, 'vector', true),
    fn('vector', ['scalar'], 0, 'vector'),
    fn('year', ['vector'], 1, 'vector'),
  ].map((f) => [f.name, f] as const),
);

/** The signature of a function, or undefined for an unknown name (names are case-sensitive). */
export function getFunction(name: string): FunctionSignature | undefined {
  return FUNCTIONS.get(name);
}
