// Which queries the frontend shards, by which labels, and the text of the shard sub-queries.
import { describe, expect, it } from 'vitest';
import { planSharding, type ShardPlan } from './shard_rewrite.js';

function plan(query: string): ShardPlan {
  const d = planSharding(query);
  if (!d.shardable) throw new Error(`not shardable: ${d.reason}`);
  return d.plan;
}

describe('shardability', () => {
  it.each([
    ['sum(rate(http_requests_total[5m]))', 'all'],
    ['sum by (job) (rate(http_requests_total{job!="x"}[5m]))', 'by'],
    ['count without (instance) (up)', 'without'],
    ['min(temperature offset 10m)', 'all'],
    ['max by (room) (max_over_time(temperature[15m] @ 1700000000))', 'by'],
    ['avg(temperature)', 'all'],
    ['avg by (room) (temperature * 2 + 1)', 'by'],
    ['topk(3, temperature)', 'all'],
    ['bottomk by (job) (2, rate(x[1m]))', 'by'],
    ['sum(temperature > 20)', 'all'],
    ['sum(-abs(clamp(x, 0, 10)))', 'all'],
    ['sum(quantile_over_time(0.9, x[5m]))', 'all'],
    ['sum(predict_linear(x[5m], 60))', 'all'],
    ['(sum((rate(x[5m]))))', 'all'],
    ['sum by () (x)', 'all'],
  ])('%s is sharded by %s labels', (query, kind) => {
    expect(plan(query).hashLabels.kind).toBe(kind);
  });

  it.each([
    ['rate(x[5m])', 'not an aggregation'],
    ['sum(rate(x[5m])) / sum(rate(y[5m]))', 'not an aggregation'],
    ['sum(x / y)', 'binary operations between selectors are not shardable'],
    ['sum(x or y)', 'or is not shardable'],
    ['sum(label_replace(x, "a", "b", "c", "d"))', 'function label_replace is not shardable'],
    ['sum(absent(x))', 'function absent is not shardable'],
    ['sum(max_over_time(rate(x[5m])[30m:1m]))', 'subqueries are not sharded'],
    ['sum(max by (job) (x))', 'nested aggregations are not sharded'],
    ['count_values("v", x)', 'aggregation count_values is not shardable'],
    ['quantile(0.9, x)', 'aggregation quantile is not shardable'],
    ['stddev by (job) (x)', 'aggregation stddev is not shardable'],
    ['group(x)', 'aggregation group is not shardable'],
    ['topk(scalar(y), x)', 'topk needs a literal k ≥ 1 to shard'],
    ['topk(0, x)', 'topk needs a literal k ≥ 1 to shard'],
    ['sum(vector(1))', 'function vector is not shardable'],
    ['sum(x{__query_shard__="1_of_2"})', 'the query already selects a shard'],
    ['sum(clamp_min(x, scalar(y)))', 'function clamp_min needs literal parameters to shard'],
    ['sum(', 'the query does not parse'],
  ])('%s runs whole: %s', (query, reason) => {
    expect(planSharding(query)).toEqual({ shardable: false, reason });
  });
});

describe('shard sub-queries', () => {
  it('adds the shard matcher to every selector, with the grouping to hash by', () => {
    expect(
      plan('sum by (job) (rate(http_requests_total{job!="x"}[5m] offset 1m))').shardQueries(1, 4),
    ).toEqual([
      'sum by (job) (rate(http_requests_total{__query_shard__="2_of_4:by:job",job!="x"}[5m] offset 1m))',
    ]);
    expect(plan('count without (instance, zone) (up)').shardQueries(0, 2)).toEqual([
      'count without (instance, zone) (up{__query_shard__="1_of_2:without:instance,zone"})',
    ]);
    // Ungrouped topk asks each shard for k+1 series; grouped topk is computed whole per group.
    expect(plan('topk(3, temperature > 20)').shardQueries(2, 3)).toEqual([
      'topk(4, temperature{__query_shard__="3_of_3"} > 20)',
    ]);
    expect(plan('topk by (room) (3, temperature)').shardQueries(0, 3)).toEqual([
      'topk by (room) (3, temperature{__query_shard__="1_of_3:by:room"})',
    ]);
  });

  it('asks for sum and count of an ungrouped avg, and avg itself of a grouped one', () => {
    expect(plan('avg(rate(x[5m]))').shardQueries(0, 2)).toEqual([
      'sum(rate(x{__query_shard__="1_of_2"}[5m]))',
      'count(rate(x{__query_shard__="1_of_2"}[5m]))',
    ]);
    expect(plan('avg by (room) (temperature)').shardQueries(0, 2)).toEqual([
      'avg by (room) (temperature{__query_shard__="1_of_2:by:room"})',
    ]);
  });

  it('reads k of topk/bottomk as the engine truncates it', () => {
    expect(plan('topk(2.7, x)').k).toBe(2);
    expect(plan('bottomk((5), x)').k).toBe(5);
  });
});

describe('exact only', () => {
  it('keeps ungrouped sum and avg whole, and shards the rest', () => {
    const exact = { exactOnly: true };
    expect(planSharding('sum(x)', exact)).toEqual({
      shardable: false,
      reason: 'ungrouped sum is not re-aggregated bit-exactly',
    });
    expect(planSharding('avg(rate(x[5m]))', exact).shardable).toBe(false);
    for (const q of ['sum by (job) (x)', 'avg without (i) (x)', 'count(x)', 'topk(2, x)']) {
      expect(planSharding(q, exact).shardable).toBe(true);
    }
  });
});
