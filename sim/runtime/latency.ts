import type { RandomStream } from '../../src/runtime/index.js';

/**
 * Delay distributions for simulated network messages, disk operations and service calls.
 * Samples are whole virtual milliseconds (the simulated clock is integral).
 */
export type LatencySpec =
  | { distribution: 'constant'; ms: number }
  | { distribution: 'uniform'; minMs: number; maxMs: number }
  /** exp(N(ln median, sigma)), clamped to maxMs: mostly near the median, with a long tail. */
  | { distribution: 'lognormal'; medianMs: number; sigma: number; maxMs: number };

export function validateLatency(spec: LatencySpec, where: string): void {
  const nonNegative = (name: string, v: number): void => {
    if (!Number.isFinite(v) || v < 0)
      throw new RangeError(`${where}: ${name} must be a non-negative number, got ${v}`);
  };
  switch (spec.distribution) {
    case 'constant':
      nonNegative('ms', spec.ms);
      return;
    case 'uniform':
      nonNegative('min', spec.minMs);
      nonNegative('max', spec.maxMs);
      if (spec.maxMs < spec.minMs)
        throw new RangeError(`${where}: max ${spec.maxMs}ms is below min ${spec.minMs}ms`);
      return;
    case 'lognormal':
      nonNegative('median', spec.medianMs);
      nonNegative('sigma', spec.sigma);
      nonNegative('max', spec.maxMs);
      return;
  }
}

/**
 * Draws one delay. Always consumes exactly two draws from `stream`, whatever the distribution,
 * so switching a distribution does not shift later draws of the same stream.
 */
export function sampleLatency(spec: LatencySpec, stream: RandomStream, multiplier = 1): number {
  const u1 = stream.next();
  const u2 = stream.next();
  let ms: number;
  switch (spec.distribution) {
    case 'constant':
      ms = spec.ms;
      break;
    case 'uniform':
      ms = spec.minMs + u1 * (spec.maxMs - spec.minMs + 1);
      ms = Math.min(Math.floor(ms), spec.maxMs);
      break;
    case 'lognormal': {
      // Box-Muller: a standard normal from two uniforms (1 - u avoids log(0)).
      const z = Math.sqrt(-2 * Math.log(1 - u1)) * Math.cos(2 * Math.PI * u2);
      ms = Math.min(spec.maxMs, spec.medianMs * Math.exp(spec.sigma * z));
      break;
    }
  }
  return Math.max(0, Math.round(ms * multiplier));
}

export function describeLatency(spec: LatencySpec): string {
  switch (spec.distribution) {
    case 'constant':
      return `constant ${spec.ms}ms`;
    case 'uniform':
      return `uniform ${spec.minMs}..${spec.maxMs}ms`;
    case 'lognormal':
      return `lognormal median ${spec.medianMs}ms sigma ${spec.sigma} max ${spec.maxMs}ms`;
  }
}
