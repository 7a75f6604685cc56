/**
 * Which engine answers a query: `X-PromQL-EngineType: prometheus|thanos` (Cortex's header)
 * or the reference's neutral `X-MonQL-EngineType: mon|alt`. Both headers take all four
 * values; without either the default engine answers.
 */
import type { Request } from 'express';
import type { PromQLEngine } from '../promql/index.js';
import { badData } from './errors.js';
import type { Engines } from './types.js';

export const ENGINE_TYPE_HEADER = 'X-PromQL-EngineType';
export const NEUTRAL_ENGINE_TYPE_HEADER = 'X-MonQL-EngineType';

export type EngineName = keyof Engines;

const ENGINE_BY_VALUE: Readonly<Record<string, EngineName>> = {
  prometheus: 'prometheus',
  thanos: 'thanos',
  mon: 'prometheus',
  alt: 'thanos',
};

function fromHeader(req: Request, header: string): EngineName | undefined {
  const value = req.get(header);
  if (value === undefined || value === '') return undefined;
  const name = Object.hasOwn(ENGINE_BY_VALUE, value) ? ENGINE_BY_VALUE[value] : undefined;
  if (name === undefined) {
    throw badData(
      `invalid ${header} header value "${value}": expected prometheus or thanos (or mon / alt)`,
    );
  }
  return name;
}

/** The engine the request selects; 400 bad_data for unknown values or a missing engine. */
export function selectEngine(
  req: Request,
  engines: Engines,
): { name: EngineName; engine: PromQLEngine } {
  const real = fromHeader(req, ENGINE_TYPE_HEADER);
  const neutral = fromHeader(req, NEUTRAL_ENGINE_TYPE_HEADER);
  if (real !== undefined && neutral !== undefined && real !== neutral) {
    throw badData(
      `conflicting engine headers: ${ENGINE_TYPE_HEADER} selects ${real} but ${NEUTRAL_ENGINE_TYPE_HEADER} selects ${neutral}`,
    );
  }
  const name = real ?? neutral ?? 'prometheus';
  const engine = engines[name];
  if (engine === undefined) {
    throw badData(`engine "${name}" is not available on this querier (only "prometheus" is)`);
  }
  return { name, engine };
}
