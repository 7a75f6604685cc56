/**
 * The query list of the differential test: every function and operator class Prometheus
 * 2.42 evaluates on float samples, written against the series a node exporter and
 * Prometheus itself expose. `{AT}` stands for a Unix time (seconds with milliseconds) inside
 * the scraped window, chosen by the test off the scrape grid.
 *
 * Queries are written for Prometheus 2.42; `strata` gives the Prometheus 3.x spelling where
 * 3.0 renamed something (holt_winters → double_exponential_smoothing). Answers that
 * legitimately differ between 2.42 and 3.x are not in this list but in KNOWN_DIFFERENCES,
 * each tied to its Prometheus 3.0 changelog entry and checked for the 3.x answer.
 */
import { diffResults, type NormResult, type OrderRule } from './results.js';

export type QueryMode = 'instant' | 'range';

export interface DiffQuery {
  /** Operator or function class, for the report. */
  readonly cls: string;
  /** The query as Prometheus 2.42 takes it. */
  readonly promql: string;
  /** The same question as Prometheus 3.x (and Strata) spell it, when different. */
  readonly strata?: string;
  /** Default both; range-vector and string results only make sense as instant queries. */
  readonly modes?: readonly QueryMode[];
  /** Instant-query order Strata must keep (`sort`, `sort_desc`). */
  readonly order?: OrderRule;
  /**
   * The query evaluates selectors at subquery steps, which are multiples of the subquery
   * step in absolute time: a sample exactly on that grid would sit on a range boundary,
   * where 2.x (closed) and 3.x (left-open) differ. The test checks the data for that.
   */
  readonly grid?: boolean;
  /**
   * Prometheus fails some questions (`'some'`), every question with data (`'data'`) or
   * every question (`'always'`), with `errorType` (default `execution`); the engines must
   * fail the same way.
   */
  readonly fails?: 'some' | 'data' | 'always';
  readonly errorType?: 'execution' | 'bad_data';
  /**
   * The query extrapolates counters that start during the scrape (rate/increase over the
   * counters of freshly started processes) looking back this many ms in all. It is asked
   * only where that window lies inside the data: where a series starts inside the window,
   * Prometheus 2.42 limits the extrapolation differently (see KNOWN_DIFFERENCES).
   */
  readonly counterWindow?: number;
}

const INSTANT: readonly QueryMode[] = ['instant'];

const C = 'prometheus_http_requests_total';
const H = 'prometheus_http_request_duration_seconds_bucket';
const CPU = 'node_cpu_seconds_total';

export const QUERIES: readonly DiffQuery[] = [
  // Selectors and matchers.
  { cls: 'selector', promql: 'up' },
  { cls: 'selector', promql: 'go_goroutines' },
  { cls: 'selector', promql: `${C}{handler="/metrics"}` },
  { cls: 'selector', promql: `${CPU}{mode!="idle"}` },
  { cls: 'selector', promql: `${C}{handler=~"/api/v1/.*|/metrics"}` },
  { cls: 'selector', promql: `${C}{handler!~"/api/.*"}` },
  { cls: 'selector', promql: '{__name__=~"go_gc_duration_seconds.*", job="node"}' },
  { cls: 'selector', promql: `${CPU}{mode=~"user|system", cpu="0"}` },
  { cls: 'selector', promql: `${CPU}{mode=""}` },
  { cls: 'selector', promql: 'process_resident_memory_bytes{instance=~".+", job!=""}' },
  { cls: 'selector', promql: `${C}{handler=~"/metric."}` },
  { cls: 'selector', promql: 'nonexistent_metric' },
  { cls: 'range selector', promql: 'up[10s]', modes: INSTANT },
  { cls: 'range selector', promql: 'go_goroutines{job="node"}[7s]', modes: INSTANT },
  { cls: 'range selector', promql: `${CPU}{cpu="0",mode="idle"}[12s] offset 5s`, modes: INSTANT },
  { cls: 'offset', promql: 'go_goroutines offset 10s' },
  { cls: 'offset', promql: 'go_goroutines offset -5s' },
  { cls: 'offset', promql: `rate(${CPU}[10s] offset 5s)` },
  { cls: '@', promql: 'go_goroutines @ {AT}' },
  { cls: '@', promql: `rate(${CPU}[10s] @ {AT})` },
  { cls: '@', promql: 'go_goroutines @ start()' },
  { cls: '@', promql: 'go_goroutines @ end()' },
  { cls: '@', promql: 'go_goroutines @ {AT} offset 5s' },
  { cls: '@', promql: `sum(rate(${C}[10s] @ end()))` },
  { cls: 'literal', promql: '1' },
  { cls: 'literal', promql: '-2.5e3' },
  { cls: 'literal', promql: '"a string"', modes: INSTANT },
  { cls: 'literal', promql: '1 + 2 * 3 ^ 2 ^ 0.5 - 4 / 2 % 3' },
  { cls: 'literal', promql: '-1 ^ 2' },
  // Rate family and other range functions.
  { cls: 'rate', promql: `rate(${CPU}[10s])` },
  { cls: 'rate', promql: `rate(${C}[20s])`, counterWindow: 20_000 },
  { cls: 'rate', promql: 'rate(process_cpu_seconds_total[30s])', counterWindow: 30_000 },
  { cls: 'rate', promql: 'irate(node_network_receive_bytes_total[10s])' },
  { cls: 'rate', promql: `irate(${CPU}[5s])` },
  { cls: 'rate', promql: `increase(${C}[15s])`, counterWindow: 15_000 },
  {
    cls: 'rate',
    promql: 'increase(go_memstats_alloc_bytes_total[10s])',
    counterWindow: 10_000,
  },
  { cls: 'rate', promql: 'delta(go_goroutines[10s])' },
  { cls: 'rate', promql: 'delta(process_resident_memory_bytes[20s])' },
  { cls: 'rate', promql: 'idelta(go_memstats_heap_alloc_bytes[10s])' },
  { cls: 'rate', promql: 'deriv(process_resident_memory_bytes[20s])' },
  { cls: 'rate', promql: 'deriv(go_memstats_alloc_bytes_total[15s])' },
  { cls: 'rate', promql: 'predict_linear(go_memstats_alloc_bytes_total[15s], 60)' },
  { cls: 'rate', promql: 'predict_linear(process_resident_memory_bytes[20s], 3600)' },
  {
    cls: 'rate',
    promql: 'holt_winters(process_resident_memory_bytes[20s], 0.5, 0.5)',
    strata: 'double_exponential_smoothing(process_resident_memory_bytes[20s], 0.5, 0.5)',
  },
  {
    cls: 'rate',
    promql: 'holt_winters(go_memstats_alloc_bytes_total[15s], 0.1, 0.9)',
    strata: 'double_exponential_smoothing(go_memstats_alloc_bytes_total[15s], 0.1, 0.9)',
  },
  { cls: 'rate', promql: 'resets(go_memstats_heap_alloc_bytes[20s])' },
  { cls: 'rate', promql: 'changes(go_goroutines[20s])' },
  { cls: 'rate', promql: `changes(${CPU}[10s])` },
  // *_over_time.
  { cls: 'over_time', promql: 'avg_over_time(go_goroutines[15s])' },
  { cls: 'over_time', promql: 'avg_over_time(process_resident_memory_bytes[20s])' },
  { cls: 'over_time', promql: 'min_over_time(go_memstats_heap_alloc_bytes[20s])' },
  { cls: 'over_time', promql: 'max_over_time(scrape_duration_seconds[20s])' },
  { cls: 'over_time', promql: 'sum_over_time(scrape_samples_scraped[10s])' },
  { cls: 'over_time', promql: 'count_over_time(up[13s])' },
  { cls: 'over_time', promql: 'quantile_over_time(0.9, scrape_duration_seconds[20s])' },
  { cls: 'over_time', promql: 'quantile_over_time(0.25, go_memstats_heap_alloc_bytes[20s])' },
  { cls: 'over_time', promql: 'stddev_over_time(go_memstats_heap_alloc_bytes[20s])' },
  { cls: 'over_time', promql: 'stdvar_over_time(scrape_duration_seconds[20s])' },
  { cls: 'over_time', promql: 'last_over_time(go_goroutines[10s])' },
  { cls: 'over_time', promql: 'present_over_time(up[10s])' },
  { cls: 'over_time', promql: 'absent_over_time(nonexistent_metric[10s])' },
  { cls: 'over_time', promql: 'absent_over_time(up{job="node"}[10s])' },
  // Aggregations.
  { cls: 'aggregation', promql: `sum(rate(${CPU}[10s]))` },
  { cls: 'aggregation', promql: `sum by (mode) (rate(${CPU}[10s]))` },
  { cls: 'aggregation', promql: `sum without (cpu) (rate(${CPU}[10s]))` },
  { cls: 'aggregation', promql: 'avg by (job) (go_goroutines)' },
  { cls: 'aggregation', promql: `avg without (mode) (${CPU})` },
  { cls: 'aggregation', promql: `min by (cpu) (${CPU})` },
  { cls: 'aggregation', promql: `max without (cpu, mode) (${CPU})` },
  { cls: 'aggregation', promql: `count by (handler) (${H})` },
  { cls: 'aggregation', promql: 'count(up)' },
  { cls: 'aggregation', promql: `group by (mode) (${CPU})` },
  { cls: 'aggregation', promql: `stddev by (mode) (rate(${CPU}[10s]))` },
  { cls: 'aggregation', promql: 'stddev(go_goroutines)' },
  { cls: 'aggregation', promql: `stdvar without (cpu) (rate(${CPU}[10s]))` },
  // topk/bottomk keep whichever tied series Go's heap keeps. Rates of the CPU counters tie
  // often (10 ms resolution), and 2.42 and 3.x round rate's extrapolation factor in a
  // different order, so "equal" rates may differ in the last bit on one side only: k-way
  // selection runs on raw values, or on rates that do not tie apart from exact zeros.
  { cls: 'aggregation', promql: `topk(3, ${CPU})` },
  {
    cls: 'aggregation',
    promql: 'topk(3, rate(prometheus_http_response_size_bytes_sum[10s]))',
    counterWindow: 10_000,
  },
  { cls: 'aggregation', promql: `topk by (mode) (1, ${CPU})` },
  { cls: 'aggregation', promql: `bottomk(2, ${C})` },
  { cls: 'aggregation', promql: `bottomk without (cpu) (1, ${CPU})` },
  { cls: 'aggregation', promql: `quantile(0.5, rate(${CPU}[10s]))` },
  { cls: 'aggregation', promql: `quantile by (mode) (0.9, ${CPU})` },
  { cls: 'aggregation', promql: 'quantile(1.5, go_goroutines)' },
  { cls: 'aggregation', promql: 'quantile(-1, go_goroutines)' },
  { cls: 'aggregation', promql: 'count_values("v", go_goroutines)' },
  { cls: 'aggregation', promql: `count_values by (mode) ("value", ${CPU})` },
  { cls: 'aggregation', promql: 'sum(up) by (job)' },
  { cls: 'aggregation', promql: 'max(go_goroutines) without (instance)' },
  // Before the data count(up) is empty, scalar() NaN: "Scalar value NaN overflows int64".
  { cls: 'aggregation', promql: 'topk(scalar(count(up)), go_goroutines)', fails: 'some' },
  // Binary operators: arithmetic, comparison, bool, vector matching, set operators.
  { cls: 'binary', promql: 'go_goroutines * 2 + 1' },
  { cls: 'binary', promql: '2 ^ go_threads' },
  { cls: 'binary', promql: 'process_resident_memory_bytes / 1024 / 1024' },
  { cls: 'binary', promql: `${CPU} % 7` },
  { cls: 'binary', promql: '-go_goroutines' },
  { cls: 'binary', promql: 'go_goroutines - go_threads' },
  { cls: 'binary', promql: 'go_memstats_heap_alloc_bytes / go_memstats_heap_sys_bytes' },
  {
    cls: 'binary',
    promql: 'process_resident_memory_bytes / on(job, instance) process_virtual_memory_bytes',
  },
  { cls: 'binary', promql: 'go_goroutines / ignoring(job) go_threads' },
  { cls: 'binary', promql: 'go_goroutines + on() group_left sum(go_threads)' },
  {
    cls: 'binary',
    promql: `rate(${CPU}[10s]) / on(cpu) group_left sum by (cpu) (rate(${CPU}[10s]))`,
  },
  {
    cls: 'binary',
    promql: `sum by (cpu) (rate(${CPU}[10s])) / on(cpu) group_right rate(${CPU}[10s])`,
  },
  {
    cls: 'binary',
    promql: `${CPU} * on(instance) group_left(version) node_exporter_build_info`,
  },
  { cls: 'binary', promql: 'go_goroutines + on(job) go_threads' },
  { cls: 'binary', promql: 'go_goroutines + go_info' },
  { cls: 'binary', promql: 'go_goroutines > 10' },
  { cls: 'binary', promql: 'go_goroutines < bool 10' },
  { cls: 'binary', promql: `${CPU} >= 100` },
  { cls: 'binary', promql: `${CPU} != bool 0` },
  { cls: 'binary', promql: 'go_goroutines == go_goroutines offset 5s' },
  { cls: 'binary', promql: 'go_goroutines <= bool ignoring(job) go_threads' },
  { cls: 'binary', promql: '10 > bool 5' },
  { cls: 'binary', promql: '1 == bool 1' },
  { cls: 'binary', promql: 'up and on(job) go_goroutines > 10' },
  { cls: 'binary', promql: `${CPU} and ${CPU}{mode="idle"}` },
  { cls: 'binary', promql: `${CPU}{mode="idle"} or ${CPU}{mode="user"}` },
  { cls: 'binary', promql: 'go_goroutines or go_threads' },
  { cls: 'binary', promql: `${CPU} unless ${CPU}{mode="idle"}` },
  { cls: 'binary', promql: 'up unless on(job) go_goroutines{job="node"}' },
  { cls: 'binary', promql: 'vector(1) or vector(2)' },
  { cls: 'binary', promql: 'go_goroutines + on(instance) go_threads', modes: INSTANT },
  { cls: 'binary error', promql: 'go_goroutines + on() go_threads', fails: 'data' },
  { cls: 'binary error', promql: `${CPU} / on(cpu) ${CPU}`, fails: 'data' },
  { cls: 'binary error', promql: `${CPU} * on(cpu) group_left ${CPU}`, fails: 'data' },
  { cls: 'parse error', promql: '1 > 2', fails: 'always', errorType: 'bad_data' },
  { cls: 'parse error', promql: 'sum(go_goroutines', fails: 'always', errorType: 'bad_data' },
  { cls: 'parse error', promql: 'rate(go_goroutines)', fails: 'always', errorType: 'bad_data' },
  {
    cls: 'parse error',
    promql: 'go_goroutines and 1',
    fails: 'always',
    errorType: 'bad_data',
  },
  // Scalars and vectors.
  { cls: 'scalar/vector', promql: 'scalar(count(up))' },
  { cls: 'scalar/vector', promql: 'scalar(go_goroutines)' },
  { cls: 'scalar/vector', promql: 'vector(42)' },
  { cls: 'scalar/vector', promql: 'vector(scalar(sum(up)))' },
  { cls: 'scalar/vector', promql: 'go_goroutines * scalar(count(up))' },
  { cls: 'scalar/vector', promql: 'sum(up) / scalar(count(up))' },
  // Subqueries.
  {
    cls: 'subquery',
    promql: `max_over_time(rate(${C}[10s])[20s:2s])`,
    grid: true,
    counterWindow: 30_000,
  },
  { cls: 'subquery', promql: 'avg_over_time(go_goroutines[30s:5s])', grid: true },
  {
    cls: 'subquery',
    promql: 'rate(process_cpu_seconds_total[30s:3s])',
    grid: true,
    counterWindow: 30_000,
  },
  { cls: 'subquery', promql: 'go_goroutines[20s:4s]', modes: INSTANT, grid: true },
  { cls: 'subquery', promql: 'min_over_time(go_goroutines[30s:])', grid: true },
  { cls: 'subquery', promql: 'sum_over_time(up[15s:1s] offset 5s)', grid: true },
  { cls: 'subquery', promql: 'count_over_time(go_goroutines[20s:2s] @ {AT})', grid: true },
  {
    cls: 'subquery',
    // 20s500ms: an inner window of whole seconds would start exactly on an inner step at
    // every other outer step (left-open in 3.x, closed in 2.x).
    promql: `max_over_time(deriv(rate(${CPU}[10s])[20s500ms:2s])[10s:5s])`,
    grid: true,
  },
  // Classic histograms.
  // Prometheus's own histograms start with the process: counterWindow throughout.
  {
    cls: 'histogram_quantile',
    promql: `histogram_quantile(0.9, rate(${H}[20s]))`,
    counterWindow: 20_000,
  },
  {
    cls: 'histogram_quantile',
    promql: `histogram_quantile(0.5, sum by (le) (rate(${H}[20s])))`,
    counterWindow: 20_000,
  },
  {
    cls: 'histogram_quantile',
    promql: `histogram_quantile(0.99, sum by (le, handler) (rate(${H}[15s])))`,
    counterWindow: 15_000,
  },
  { cls: 'histogram_quantile', promql: `histogram_quantile(0.75, ${H})` },
  { cls: 'histogram_quantile', promql: `histogram_quantile(1.5, ${H}{handler="/metrics"})` },
  { cls: 'histogram_quantile', promql: `histogram_quantile(0, ${H}{handler="/metrics"})` },
  { cls: 'histogram_quantile', promql: `histogram_quantile(1, ${H}{handler="/metrics"})` },
  {
    cls: 'histogram_quantile',
    promql: 'histogram_quantile(0.9, rate(prometheus_http_response_size_bytes_bucket[20s]))',
    counterWindow: 20_000,
  },
  // Label functions.
  {
    cls: 'label',
    promql: 'label_replace(go_goroutines, "port", "$2", "instance", "(.*):(.*)")',
  },
  { cls: 'label', promql: 'label_replace(up, "job", "", "job", ".*")' },
  { cls: 'label', promql: 'label_replace(up, "x", "${1}-y", "job", "(no)de")' },
  { cls: 'label', promql: 'label_replace(up, "x", "$1", "job", "nomatch(.*)")' },
  { cls: 'label', promql: 'label_join(up, "both", "/", "job", "instance")' },
  { cls: 'label', promql: `label_join(${CPU}, "id", "-", "cpu", "mode", "missing")` },
  // Where `__name__` goes: removed at once by the operation that drops it, as Prometheus does
  // by default (Strata's default too; the conformance runner delays it as Prometheus's test
  // engine does). label_replace no longer sees it; equal label sets left behind collide.
  {
    cls: 'name',
    promql: 'label_replace(rate(process_cpu_seconds_total[10s]), "n", "$1", "__name__", "(.+)")',
    counterWindow: 10_000,
  },
  { cls: 'name', promql: 'label_join(abs(go_goroutines), "n", "-", "__name__", "job")' },
  { cls: 'name', promql: 'label_replace(-go_threads, "n", "$1", "__name__", "(.*)")' },
  {
    cls: 'name',
    promql: 'sum by (__name__) (rate(process_cpu_seconds_total[10s]))',
    counterWindow: 10_000,
  },
  { cls: 'name', promql: 'count by (__name__) (go_goroutines > bool 10)' },
  { cls: 'name', promql: '{__name__=~"go_goroutines|go_threads"} * 1', fails: 'data' },
  { cls: 'name', promql: 'changes({__name__=~"go_goroutines|go_threads"}[1m])', fails: 'data' },
  { cls: 'name', promql: 'abs({__name__=~"go_goroutines|go_threads"})', fails: 'data' },
  // Sorting and absence.
  { cls: 'sort', promql: `sort(${CPU})`, order: 'asc' },
  { cls: 'sort', promql: `sort_desc(rate(${CPU}[10s]))`, order: 'desc' },
  { cls: 'absent', promql: 'absent(nonexistent_metric{job="x"})' },
  { cls: 'absent', promql: 'absent(up)' },
  { cls: 'absent', promql: 'absent(nonexistent_metric{job="x", instance=~"a.*"})' },
  { cls: 'absent', promql: 'absent(sum(nonexistent_metric))' },
  // Time functions.
  { cls: 'time', promql: 'time()' },
  { cls: 'time', promql: 'timestamp(go_goroutines)' },
  { cls: 'time', promql: 'timestamp(go_goroutines offset 5s)' },
  { cls: 'time', promql: 'time() - process_start_time_seconds' },
  { cls: 'time', promql: 'minute()' },
  { cls: 'time', promql: 'hour(process_start_time_seconds)' },
  { cls: 'time', promql: 'day_of_month()' },
  { cls: 'time', promql: 'day_of_week(node_boot_time_seconds)' },
  { cls: 'time', promql: 'day_of_year()' },
  { cls: 'time', promql: 'days_in_month(vector(1709164800))' },
  { cls: 'time', promql: 'month(process_start_time_seconds)' },
  { cls: 'time', promql: 'year()' },
  // Math.
  { cls: 'math', promql: 'abs(delta(go_goroutines[10s]))' },
  { cls: 'math', promql: 'ceil(scrape_duration_seconds * 1000)' },
  { cls: 'math', promql: 'floor(scrape_duration_seconds * 1000)' },
  { cls: 'math', promql: 'round(scrape_duration_seconds * 1000)' },
  { cls: 'math', promql: 'round(go_goroutines / 7, 0.5)' },
  { cls: 'math', promql: 'round(process_resident_memory_bytes, 1024)' },
  { cls: 'math', promql: 'exp(scrape_duration_seconds)' },
  { cls: 'math', promql: 'ln(go_goroutines)' },
  { cls: 'math', promql: 'log2(process_resident_memory_bytes)' },
  { cls: 'math', promql: 'log10(process_resident_memory_bytes)' },
  { cls: 'math', promql: 'sqrt(go_goroutines)' },
  { cls: 'math', promql: 'sgn(delta(go_goroutines[10s]))' },
  { cls: 'math', promql: 'clamp(go_goroutines, 10, 20)' },
  { cls: 'math', promql: 'clamp(go_goroutines, 20, 10)' },
  { cls: 'math', promql: 'clamp_min(go_goroutines, 15)' },
  { cls: 'math', promql: 'clamp_max(go_goroutines, 15)' },
  { cls: 'math', promql: 'sin(go_goroutines) + cos(go_threads) + tan(up)' },
  { cls: 'math', promql: 'asin(up) + acos(up) + atan(go_goroutines)' },
  { cls: 'math', promql: 'sinh(up) + cosh(up) + tanh(go_goroutines / 100)' },
  { cls: 'math', promql: 'asinh(go_goroutines) + acosh(go_goroutines) + atanh(up / 2)' },
  { cls: 'math', promql: 'deg(pi() * up) + rad(go_goroutines)' },
  { cls: 'math', promql: 'ln(up - 1)' },
  { cls: 'math', promql: 'sqrt(-go_goroutines)' },
  { cls: 'math', promql: 'go_goroutines / 0' },
  { cls: 'math', promql: '-go_goroutines / 0 + (0 / up)' },
];

/**
 * A query whose answer legitimately differs between Prometheus 2.42 and 3.x. `check` gets
 * both instant answers and returns what is wrong with Strata's (empty when Strata gives the
 * 3.x answer and Prometheus the documented 2.x one).
 */
export interface KnownDifference {
  readonly promql: string;
  readonly strata?: string;
  readonly reason: string;
  /** The Prometheus 3.0 changelog entry (and migration guide section) behind it. */
  readonly changelog: string;
  check(prom: NormResult, strata: NormResult): string[];
}

function values(r: NormResult): number[] {
  return r.series.map((s) => s.points[0]?.[1] ?? NaN);
}

function expectValues(r: NormResult, want: number[], who: string): string[] {
  const got = values(r);
  return JSON.stringify(got) === JSON.stringify(want)
    ? []
    : [`${who}: want ${JSON.stringify(want)}, got ${JSON.stringify(got)}`];
}

/** 1700000000 s is a multiple of the 1s subquery step: both ends of the window sit on points. */
const ALIGNED = 1_700_000_000;

/** Series keys with `__name__` removed (Prometheus prints it first, the keys are sorted). */
function withoutName(r: NormResult): NormResult {
  return {
    ...r,
    series: r.series.map((x) => ({ ...x, key: x.key.replace(/__name__="[^"]*"(, )?/, '') })),
  };
}

function sameSeries(a: NormResult, b: NormResult): boolean {
  return diffResults(a, b).length === 0;
}

export const KNOWN_DIFFERENCES: readonly KnownDifference[] = [
  {
    promql: `count_over_time(vector(1)[10s:1s] @ ${ALIGNED})`,
    reason:
      'range selectors and subqueries are left-open in 3.x: the point at exactly t-10s is ' +
      'excluded (10 points), 2.x includes it (11 points)',
    changelog:
      '3.0.0 [CHANGE] "PromQL: Range selectors and the lookback delta are now left-open" (#13904); ' +
      'migration guide "Range selectors and lookback exclude samples coinciding with the left boundary"',
    check: (prom, strata) => [
      ...expectValues(prom, [11], 'prometheus 2.42'),
      ...expectValues(strata, [10], 'strata'),
    ],
  },
  {
    promql:
      'label_replace(label_replace(vector(1), "x", "a\\nb", "", ""), "y", "$1", "x", "(a.b)")',
    reason:
      'regular expressions: `.` matches a newline in 3.x, so `(a.b)` matches "a\\nb" and y is ' +
      'set; in 2.x it does not match and y stays absent',
    changelog:
      '3.0.0 [CHANGE] "regexp `.` now matches all characters (performance improvement)" (#14505); ' +
      'migration guide "Regular expressions match newlines"',
    check: (prom, strata) => {
      const out: string[] = [];
      const p = prom.series.map((s) => s.key);
      const s = strata.series.map((x) => x.key);
      if (JSON.stringify(p) !== JSON.stringify(['{x="a\\nb"}']))
        out.push(`prometheus 2.42: got ${JSON.stringify(p)}`);
      if (JSON.stringify(s) !== JSON.stringify(['{x="a\\nb", y="a\\nb"}']))
        out.push(`strata: got ${JSON.stringify(s)}`);
      return out;
    },
  },
  {
    // A counter that starts 4s before the evaluation: values 1..5 at A-4s..A (subquery
    // steps), increase over (A-19.5s, A+0.5s]. 2.42 clamps the start extrapolation to the
    // zero point (1s) first and then, being under 1.1 intervals, extrapolates by it: 4 ×
    // 5.5/4 = 5.5. 3.x first finds the series started inside the window (15.5s > 1.1s),
    // extrapolates half an interval, then clamps to the zero point (1s, not shorter): 4 ×
    // 5/4 = 5. The same happens to real counters of freshly started processes, which is
    // why such queries carry `counterWindow`.
    promql: `increase((vector(time()) - ${ALIGNED - 5} > 0)[20s:1s] @ ${ALIGNED}.5)`,
    reason:
      'rate/increase of a counter starting inside the window: 3.x caps the start ' +
      'extrapolation at half an interval before limiting it to the zero point, 2.42 limits ' +
      'to the zero point first and may then extrapolate further',
    changelog:
      'prometheus/prometheus#13725 "promql: Fix limiting of extrapolation to negative values" ' +
      '(merged March 2024, after 2.42; in every 3.x release)',
    check: (prom, strata) => [
      ...expectValues(prom, [5.5], 'prometheus 2.42'),
      ...expectValues(strata, [5], 'strata'),
    ],
  },
  {
    promql: 'go_goroutines atan2 go_threads',
    reason:
      '`atan2` drops the metric name like the other arithmetic operators in 3.x; 2.42 kept it',
    changelog:
      'prometheus/prometheus#12595 "Drop metric name for atan2 binary operator" ' +
      '(merged July 2023, after 2.42; in every 3.x release)',
    check: (prom, strata) => {
      const out: string[] = [];
      if (!prom.series.every((x) => x.key.includes('__name__="go_goroutines"')))
        out.push('prometheus 2.42: expected the name kept');
      if (strata.series.length === 0 || strata.series.some((x) => x.key.includes('__name__')))
        out.push(`strata: expected answers without __name__, got ${JSON.stringify(strata)}`);
      if (!sameSeries(withoutName(prom), strata)) out.push('values or other labels differ');
      return out;
    },
  },
];
