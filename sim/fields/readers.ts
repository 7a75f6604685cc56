import type { LatencySpec } from '../runtime/index.js';
import { parseDuration } from './duration.js';

/** One step of a key path: a mapping key or a list index. */
export type PathSegment = string | number;

/** `schedule[3].crash` → `['schedule', 3, 'crash']`; `undefined` if it is not a key path. */
export function splitKeyPath(text: string): PathSegment[] | undefined {
  if (!KEY_PATH.test(text)) return undefined;
  const segments: PathSegment[] = [];
  for (const m of text.matchAll(/([^.[\]]+)|\[(\d+)\]/g))
    segments.push(m[2] !== undefined ? Number(m[2]) : m[1]!);
  return segments;
}

const KEY_PATH = /^[A-Za-z_][\w-]*(?:\[\d+\]|\.[A-Za-z_][\w-]*)*$/;
/** Every reader starts its message with the key path: `schedule[3].crash: unknown node "x"`. */
const MESSAGE_PATH = /^([^\s:]+): /;

/**
 * A scenario file that does not say what the simulator needs; the message names the key path
 * and the value. `path` is that key path as segments (taken from the message's `<path>: `
 * prefix unless given), so the loader can point at the file's line without every reader
 * knowing about YAML positions.
 */
export class ScenarioError extends Error {
  override readonly name = 'ScenarioError';
  readonly path: readonly PathSegment[] | undefined;

  constructor(message: string, path?: readonly PathSegment[]) {
    super(message);
    const prefix = MESSAGE_PATH.exec(message)?.[1];
    this.path = path ?? (prefix === undefined ? undefined : splitKeyPath(prefix));
  }
}

export type Fields = Readonly<Record<string, unknown>>;

/**
 * Reads a mapping and refuses keys outside `allowed` (strict, like Cortex's YAML), so a typo
 * in a scenario fails loudly instead of silently running with a default.
 */
export function readObject(value: unknown, where: string, allowed: readonly string[]): Fields {
  if (value === undefined || value === null) return {};
  // `where` is empty for the file's top level.
  const label = where === '' ? 'top level' : where;
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new ScenarioError(
      `${label}: expected a mapping, got ${JSON.stringify(value)}`,
      where === '' ? [] : undefined,
    );
  }
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) {
      // The path goes to the key itself, so the error points at the line of the typo.
      throw new ScenarioError(
        `${label}: unknown key ${JSON.stringify(key)} (known: ${allowed.join(', ')})`,
        [...(where === '' ? [] : (splitKeyPath(where) ?? [])), key],
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

/**
 * A string that must be one of `known` (`noun` names it in the error:
 * `<where>: unknown <noun> "x" (known: a, b)`).
 */
export function readChoice<T extends string>(
  value: unknown,
  where: string,
  known: readonly T[],
  fallback: T,
  noun: string,
): T {
  const s = readString(value, where, fallback);
  if (!(known as readonly string[]).includes(s))
    throw new ScenarioError(
      `${where}: unknown ${noun} ${JSON.stringify(s)} (known: ${known.join(', ')})`,
    );
  return s as T;
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
