import { ScenarioError, readBoolean, readDuration, readObject } from '../../fields/index.js';
import type { SimProcess } from '../../cluster/index.js';
import type { SimNodeEnv } from '../../runtime/index.js';
import type { CheckResult, WorkloadContext } from '../workload.js';
import type { CheckContext } from './checks.js';
import {
  checkModelRangeQueries,
  checkNoRequestLost,
  checkTenantFairness,
} from './checks_frontend.js';
import type { StrataWorkloadConfig } from './config.js';
import { frontendLoad, type FrontendLog } from './frontend_load.js';

export const FRONTEND_CHECKS = [
  'no_request_lost',
  'tenant_fairness',
  'model_range_queries',
] as const;

/**
 * The query-frontend nodes and `workload.frontend` come together; the queriers pull work
 * from the first frontend (its RPC address is its node name), which `applyFrontend` reads.
 */
export function wireFrontend(
  config: StrataWorkloadConfig,
  ctx: WorkloadContext,
): readonly string[] {
  const frontends = ctx.nodesByRole.get('query-frontend') ?? [];
  if (frontends.length > 0 && config.frontend === undefined)
    throw new ScenarioError('topology: query-frontend nodes need workload.frontend');
  if (config.frontend !== undefined) {
    if (frontends.length === 0)
      throw new ScenarioError('workload.frontend: needs at least one query-frontend node');
    config.frontend.address = frontends[0]!;
  }
  return frontends;
}

/**
 * The reader node's processes when a frontend runs: the ordinary reader (pointed at the
 * frontends) and the frontend load beside it, started and stopped together.
 */
export function withFrontendLoad(
  reader: SimProcess,
  env: SimNodeEnv,
  config: StrataWorkloadConfig,
  deps: Parameters<typeof frontendLoad>[3],
): SimProcess {
  if (config.frontend === undefined) return reader;
  const load = frontendLoad(env, config, config.frontend, deps);
  return {
    async start(signal: AbortSignal): Promise<void> {
      await reader.start(signal);
      await load.start(signal);
    },
    async stop(): Promise<void> {
      await load.stop();
      await reader.stop();
    },
  };
}

/** Judges the frontend's checks; undefined for another check. */
export function judgeFrontendCheck(
  spec: { name: string; options: unknown },
  config: StrataWorkloadConfig,
  ctx: () => CheckContext,
  log: FrontendLog,
  epochMs: number,
): CheckResult | undefined {
  if (!(FRONTEND_CHECKS as readonly string[]).includes(spec.name)) return undefined;
  const f = config.frontend;
  if (f === undefined)
    return {
      name: spec.name,
      verdict: 'fail',
      detail: `${spec.name} needs workload.frontend and a query-frontend node`,
    };
  const queries = config.reader.queries;
  switch (spec.name) {
    case 'no_request_lost': {
      const o = readObject(spec.options, 'checks.no_request_lost', ['expect_ok']);
      return checkNoRequestLost(log, epochMs, queries, {
        expectOk: readBoolean(o.expect_ok, 'checks.no_request_lost.expect_ok', true),
        flooder: f.flood?.tenant,
      });
    }
    case 'tenant_fairness': {
      const o = readObject(spec.options, 'checks.tenant_fairness', ['within']);
      return checkTenantFairness(log, epochMs, queries, {
        withinMs: readDuration(o.within, 'checks.tenant_fairness.within', 10_000),
        flood: f.flood,
      });
    }
    default:
      readObject(spec.options, 'checks.model_range_queries', []);
      return checkModelRangeQueries(ctx(), log, queries);
  }
}
