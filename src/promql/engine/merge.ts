// Where series end up with the same label set — names dropped at the end of evaluation,
// label_replace/label_join relabelling — they are merged into one series as long as their
// points do not collide in time (Prometheus cleanupMetricLabels and
// mergeSeriesWithSameLabelset); a collision is the "same labelset" error.
import { QueryExecutionError } from '../errors.js';
import type { EMatrix } from './types.js';
import { dropMetadataLabels, SAME_LABELSET } from './util.js';

/**
 * Drops names marked for dropping, then merges series that now share a label set, failing
 * when two of them have a point at the same time (Prometheus cleanupMetricLabels).
 */
export function cleanupMetricLabels(mat: EMatrix): EMatrix {
  for (const s of mat) {
    if (s.dropName) s.metric = dropMetadataLabels(s.metric);
  }
  return mergeSeriesWithSameLabelset(mat);
}

/**
 * Merges series with equal label sets (e.g. after names were dropped, or relabelled by
 * label_replace), failing when two of them have a point at the same time (Prometheus
 * mergeSeriesWithSameLabelset).
 */
export function mergeSeriesWithSameLabelset(mat: EMatrix): EMatrix {
  if (mat.length <= 1) return mat;
  const byKey = new Map<string, number[]>();
  const keys: string[] = [];
  for (let i = 0; i < mat.length; i++) {
    const k = (mat[i] as EMatrix[number]).metric.toString();
    const list = byKey.get(k);
    if (list === undefined) {
      byKey.set(k, [i]);
      keys.push(k);
    } else list.push(i);
  }
  if (keys.length === mat.length) return mat;
  const merged: EMatrix = [];
  for (const k of keys) {
    const idx = byKey.get(k) as number[];
    const base = mat[idx[0] as number] as EMatrix[number];
    if (idx.length === 1) {
      merged.push(base);
      continue;
    }
    const points: [number, number][] = [];
    for (const i of idx) {
      const s = mat[i] as EMatrix[number];
      for (let j = 0; j < s.ts.length; j++) points.push([s.ts[j] as number, s.fs[j] as number]);
    }
    points.sort((a, b) => a[0] - b[0]);
    for (let j = 1; j < points.length; j++) {
      if ((points[j] as [number, number])[0] === (points[j - 1] as [number, number])[0]) {
        throw new QueryExecutionError(SAME_LABELSET);
      }
    }
    merged.push({
      metric: base.metric,
      ts: points.map((p) => p[0]),
      fs: points.map((p) => p[1]),
      dropName: base.dropName,
    });
  }
  return merged;
}
