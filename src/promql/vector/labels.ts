// Label-set and arithmetic helpers of vector matching and aggregation, with the default
// engine's exact semantics (Prometheus Labels.MatchLabels, Builder.Keep/Set/Del,
// DropReserved, kahanSumInc). The default engine keeps its copies private to its module.
import { compareGoStrings, Labels } from '../../model/index.js';
import type { VectorMatching } from '../parser/index.js';

/** Kahan–Neumaier summation step (Prometheus kahanSumInc). */
export function kahanSumInc(inc: number, sum: number, c: number): [number, number] {
  const t = sum + inc;
  if (!Number.isFinite(t) && !Number.isNaN(t)) return [t, 0];
  if (Math.abs(sum) >= Math.abs(inc)) return [t, c + (sum - t + inc)];
  return [t, c + (inc - t + sum)];
}

const METADATA_LABELS = ['__name__', '__type__', '__unit__'];

/** Drops the metric name and the type/unit metadata labels (Prometheus DropReserved). */
export function dropMetadataLabels(l: Labels): Labels {
  return l.has('__name__') || l.has('__type__') || l.has('__unit__')
    ? l.without(...METADATA_LABELS)
    : l;
}

/** Only the labels named in `names` (Prometheus Builder.Keep). */
export function keepLabels(l: Labels, names: readonly string[]): Labels {
  const wanted = new Set(names);
  const keepNames: string[] = [];
  const keepValues: string[] = [];
  l.forEach((n, v) => {
    if (wanted.has(n)) {
      keepNames.push(n);
      keepValues.push(v);
    }
  });
  return keepNames.length === l.length ? l : Labels.fromSorted(keepNames, keepValues);
}

/** `name` set to `value`, or removed when `value` is empty (Prometheus Builder.Set). */
export function setLabel(l: Labels, name: string, value: string): Labels {
  if (value === '') return l.has(name) ? l.without(name) : l;
  if (l.get(name) === value) return l;
  const names: string[] = [];
  const values: string[] = [];
  let inserted = false;
  l.forEach((n, v) => {
    if (n === name) return;
    if (!inserted && compareGoStrings(name, n) < 0) {
      names.push(name);
      values.push(value);
      inserted = true;
    }
    names.push(n);
    values.push(v);
  });
  if (!inserted) {
    names.push(name);
    values.push(value);
  }
  return Labels.fromSorted(names, values);
}

/** Prometheus Labels.MatchLabels: on → only `names`; ignoring → all but `names` and the name. */
export function matchLabels(l: Labels, on: boolean, names: readonly string[]): Labels {
  const set = new Set(names);
  const keepNames: string[] = [];
  const keepValues: string[] = [];
  l.forEach((n, v) => {
    if (on === set.has(n) && (on || n !== '__name__')) {
      keepNames.push(n);
      keepValues.push(v);
    }
  });
  return Labels.fromSorted(keepNames, keepValues);
}

/** The join signature of a label set under `matching`. */
export function signatureFunction(matching: VectorMatching): (l: Labels) => string {
  if (matching.on) {
    const names = new Set(matching.matchingLabels);
    return (l) => {
      let s = '';
      l.forEach((n, v) => {
        if (names.has(n)) s += n + '\xff' + v + '\xff';
      });
      return s;
    };
  }
  const names = new Set(['__name__', ...matching.matchingLabels]);
  return (l) => {
    let s = '';
    l.forEach((n, v) => {
      if (!names.has(n)) s += n + '\xff' + v + '\xff';
    });
    return s;
  };
}

/** A string identifying a label set. */
export function labelsKey(l: Labels): string {
  let k = '';
  l.forEach((n, v) => {
    k += n + '\xff' + v + '\xff';
  });
  return k;
}
