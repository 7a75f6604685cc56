import type { LatencySpec } from '../runtime/index.js';
import { parseDuration } from './duration.js';

/** A scenario file that does not say what the simulator needs; the message names the key path. */
export class ScenarioError extends Error {
  override readonly name = 'ScenarioError';
}

export type Fields = Readonly<Record<string, unknown>>;

/**
 * Reads a mapping and refuses keys outside `allowed` (strict, like Cortex's YAML), so a typo
 * in a scenario fails loudly instead of silently running with a default.
 */
export function readObject(value: unknown, where: string, allowed: readonly string[]): Fields {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new ScenarioError(`${where}: expected a mapping, got ${JSON.stringify(value)}`);
  }
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) {
      throw new ScenarioError(
        `${where}: unknown key ${JSON.stringify(key)} (known: ${allowed.join(', ')})`,
      );
    }
  }
  return value as Fields;
}

export function readArray(value: unknown, where: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value))
    throw new ScenarioError(`${where}: expected a list, got ${JSON.stringify(value)}`);
  return value;
}

export function readString(value: unknown, where: string, fallback?: string): string {
  if (value === undefined || value === null) {
    if (fallback !== undefined) return fallback;
    throw new ScenarioError(`${where}: required`);
  }
  if (typeof value !== 'string' || value === '')
    throw new ScenarioError(`${where}: expected a non-empty string, got ${JSON.stringify(value)}`);
  return value;
}

export function readNumber(
  value: unknown,
  where: string,
  fallback: number,
  opts: { min?: number; max?: number; integer?: boolean } = {},
): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw new ScenarioError(`${where}: expected a number, got ${JSON.stringify(value)}`);
  if (opts.integer === true && !Number.isSafeInteger(value))
    throw new ScenarioError(`${where}: expected an integer, got ${value}`);
  if (opts.min !== undefined && value < opts.min)
    throw new ScenarioError(`${where}: must be at least ${opts.min}, got ${value}`);
  if (opts.max !== undefined && value > opts.max)
    throw new ScenarioError(`${where}: must be at most ${opts.max}, got ${value}`);
  return value;
}

export function readProbability(value: unknown, where: string, fallback: number): number {
  return readNumber(value, where, fallback, { min: 0, max: 1 });
}

export function readBoolean(value: unknown, where: string, fallback: boolean): boolean {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'boolean')
    throw new ScenarioError(`${where}: expected true or false, got ${JSON.stringify(value)}`);
  return value;
}

export function readDuration(value: unknown, where: string, fallback?: number): number {
  if (value === undefined || value === null) {
    if (fallback !== undefined) return fallback;
    throw new ScenarioError(`${where}: required`);
  }
  try {
    return parseDuration(value, where);
  } catch (err) {
    throw new ScenarioError((err as Error).message);
  }
}

export function readStringList(value: unknown, where: string): string[] {
  return readArray(value, where).map((v, i) => readString(v, `${where}[${i}]`));
}

/**
 * A latency distribution: `5ms` (constant), `{ distribution: constant, value: 5ms }`,
 * `{ distribution: uniform, min: 1ms, max: 5ms }` or
 * `{ distribution: lognormal, median: 2ms, sigma: 0.5, max: 100ms }`.
 */
export function readLatency(value: unknown, where: string, fallback: LatencySpec): LatencySpec {
  if (value === undefined || value === null) return fallback;
  if (typeof value === 'string' || typeof value === 'number')
    return { distribution: 'constant', ms: readDuration(value, where) };
  const o = readObject(value, where, ['distribution', 'value', 'min', 'max', 'median', 'sigma']);
  const kind = readString(o.distribution, `${where}.distribution`);
  switch (kind) {
    case 'constant':
      return { distribution: 'constant', ms: readDuration(o.value, `${where}.value`) };
    case 'uniform': {
      const minMs = readDuration(o.min, `${where}.min`);
      const maxMs = readDuration(o.max, `${where}.max`);
      if (maxMs < minMs)
        throw new ScenarioError(`${where}: max ${maxMs}ms is below min ${minMs}ms`);
      return { distribution: 'uniform', minMs, maxMs };
    }
    case 'lognormal':
      return {
        distribution: 'lognormal',
        medianMs: readDuration(o.median, `${where}.median`),
        sigma: readNumber(o.sigma, `${where}.sigma`, 0.5, { min: 0 }),
        maxMs: readDuration(o.max, `${where}.max`, 60_000),
      };
    default:
      throw new ScenarioError(
        `${where}.distribution: unknown distribution ${JSON.stringify(kind)} (known: constant, uniform, lognormal)`,
      );
  }
}
