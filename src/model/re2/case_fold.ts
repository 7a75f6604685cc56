/**
 * Simple case folding as Go's unicode.SimpleFold defines it: code points are grouped into
 * "orbits" of case variants (k, K and the Kelvin sign K form one orbit). RE2's `(?i)` makes a
 * literal or class match every member of an orbit. The orbits are Go's own table
 * (`case_orbits.ts`), indexed once at module load and never changed afterwards.
 */
import { GO_CASE_ORBITS } from './case_orbits.js';

/** Lowest and highest code point that takes part in any orbit (same bounds as Go). */
export const MIN_FOLD = 0x41;
export const MAX_FOLD = 0x1e943;

function indexOrbits(encoded: readonly number[]): ReadonlyMap<number, readonly number[]> {
  const orbits = new Map<number, readonly number[]>();
  let i = 0;
  while (i < encoded.length) {
    const length = encoded[i] as number;
    const members = Object.freeze(encoded.slice(i + 1, i + 1 + length));
    for (const m of members) orbits.set(m, members);
    i += 1 + length;
  }
  return orbits;
}

const ORBITS: ReadonlyMap<number, readonly number[]> = indexOrbits(GO_CASE_ORBITS);

/** Calls fn once per orbit (each orbit has at least two members). */
export function forEachOrbit(fn: (orbit: readonly number[]) => void): void {
  const encoded = GO_CASE_ORBITS;
  let i = 0;
  while (i < encoded.length) {
    const length = encoded[i] as number;
    fn(ORBITS.get(encoded[i + 1] as number) as readonly number[]);
    i += 1 + length;
  }
}

/** All case variants of `cp` including itself, in ascending order. */
export function foldOrbit(cp: number): readonly number[] {
  return ORBITS.get(cp) ?? [cp];
}

/** A canonical representative of the orbit of `cp`: equal keys mean "equal under (?i)". */
export function foldKey(cp: number): number {
  const orbit = ORBITS.get(cp);
  return orbit === undefined ? cp : (orbit[0] as number);
}

/** Go's strings.EqualFold: equal under simple case folding, compared by code point. */
export function equalFold(a: string, b: string): boolean {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const ca = a.codePointAt(i) as number;
    const cb = b.codePointAt(j) as number;
    if (ca !== cb && foldKey(ca) !== foldKey(cb)) return false;
    i += ca > 0xffff ? 2 : 1;
    j += cb > 0xffff ? 2 : 1;
  }
  return i === a.length && j === b.length;
}
