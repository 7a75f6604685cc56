/**
 * The Strata engines the differential test runs. Every engine Strata has belongs here: the
 * default engine and the vectorised alternative (`thanos`) must give identical answers, so
 * adding an engine is one line and the whole query list runs on it. Options are Strata's
 * defaults, which are Prometheus's (5m lookback, 1m default subquery step, `__name__`
 * removed at once: no delayed name removal, which Prometheus keeps behind a feature flag).
 */
import { Engine } from '../../src/promql/engine/index.js';
import type { PromQLEngine } from '../../src/promql/index.js';
import { parseExpr } from '../../src/promql/parser/index.js';
import { VectorEngine } from '../../src/promql/vector/index.js';

export interface StrataEngine {
  readonly name: string;
  readonly engine: PromQLEngine;
}

const deps = { parse: (q: string) => parseExpr(q) };

export const STRATA_ENGINES: readonly StrataEngine[] = [
  { name: 'default', engine: new Engine({}, deps) },
  { name: 'thanos', engine: new VectorEngine({}, deps) },
];
