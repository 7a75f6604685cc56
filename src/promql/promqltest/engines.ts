// The engines the conformance suite can run against, by the names the CLI accepts. Each
// entry builds an engine configured as Prometheus's test.go configures its test engine
// (10,000 samples per query, 100s timeout, 1m default subquery step, experimental functions
// on, delayed `__name__` removal on: NewTestEngine enables it unconditionally, while the
// engine's own default, like Prometheus's, is off). The alternative engine is added here,
// as one line, once its module exports it.
import type { Clock } from '../../runtime/index.js';
import { Engine } from '../engine/index.js';
import { parseExpr, type Expr } from '../parser/index.js';
import { VectorEngine } from '../vector/index.js';
import type { EngineOptions, PromQLEngine } from '../query.js';

export const CONFORMANCE_ENGINE_OPTIONS: Partial<EngineOptions> = {
  maxSamples: 10_000,
  timeout: 100_000,
  noStepSubqueryIntervalFn: () => 60_000,
  enableExperimentalFunctions: true,
  enableDelayedNameRemoval: true,
};

export interface EngineFactoryDeps {
  /** Enforces the query timeout when given. */
  readonly clock?: Clock;
}

export type EngineFactory = (deps: EngineFactoryDeps) => PromQLEngine;

export type ConformanceEngineName = 'default' | 'thanos';

/** undefined: the engine is not built yet. */
export const CONFORMANCE_ENGINES: Readonly<
  Record<ConformanceEngineName, EngineFactory | undefined>
> = {
  default: (deps) => new Engine(CONFORMANCE_ENGINE_OPTIONS, { ...deps, parse: conformanceParse }),
  thanos: (deps) =>
    new VectorEngine(CONFORMANCE_ENGINE_OPTIONS, { ...deps, parse: conformanceParse }),
};

/** The parser the conformance runner hands each case's expression to. */
export function conformanceParse(query: string): Expr {
  return parseExpr(query, { enableExperimentalFunctions: true });
}

export function isConformanceEngineName(name: string): name is ConformanceEngineName {
  return Object.hasOwn(CONFORMANCE_ENGINES, name);
}
