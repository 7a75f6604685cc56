/**
 * Which token a series (or a metadata entry) hashes to on the ingester ring: Cortex's
 * `shardByMetricName` (tenant + metric name, the default) and `shardByAllLabels` (tenant +
 * every label name and value in order, `-distributor.shard-by-all-labels`). Both are 32-bit
 * FNV-1a over the UTF-8 bytes, continued across the strings with no separator, exactly as
 * Cortex's `HashAdd32`, so a Strata and a Cortex distributor place a series on the same token.
 */
import { METRIC_NAME_LABEL } from '../model/index.js';

/** FNV-1a 32-bit offset basis (Cortex's `HashNew32`). */
export const FNV32_OFFSET = 2166136261;
const FNV32_PRIME = 16777619;

/** Continues an FNV-1a 32-bit hash over the UTF-8 bytes of `s` (Cortex's `HashAdd32`). */
export function fnv32aAdd(h: number, s: string): number {
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (c < 0x80) {
      h = Math.imul(h ^ c, FNV32_PRIME);
      continue;
    }
    // Encode to UTF-8 inline: the hot path must not allocate a byte array per label.
    if (c >= 0xd800 && c <= 0xdfff) {
      const lo = c <= 0xdbff && i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
      if (lo >= 0xdc00 && lo <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
        i++;
      } else {
        c = 0xfffd; // A lone surrogate is encoded as U+FFFD, as TextEncoder would.
      }
    }
    if (c < 0x800) {
      h = Math.imul(h ^ (0xc0 | (c >> 6)), FNV32_PRIME);
      h = Math.imul(h ^ (0x80 | (c & 0x3f)), FNV32_PRIME);
    } else if (c < 0x10000) {
      h = Math.imul(h ^ (0xe0 | (c >> 12)), FNV32_PRIME);
      h = Math.imul(h ^ (0x80 | ((c >> 6) & 0x3f)), FNV32_PRIME);
      h = Math.imul(h ^ (0x80 | (c & 0x3f)), FNV32_PRIME);
    } else {
      h = Math.imul(h ^ (0xf0 | (c >> 18)), FNV32_PRIME);
      h = Math.imul(h ^ (0x80 | ((c >> 12) & 0x3f)), FNV32_PRIME);
      h = Math.imul(h ^ (0x80 | ((c >> 6) & 0x3f)), FNV32_PRIME);
      h = Math.imul(h ^ (0x80 | (c & 0x3f)), FNV32_PRIME);
    }
  }
  return h >>> 0;
}

/** Cortex's `shardByMetricName`: FNV-1a of tenant then metric name. */
export function shardByMetricName(tenant: string, metricName: string): number {
  return fnv32aAdd(fnv32aAdd(FNV32_OFFSET, tenant), metricName);
}

/** Cortex's `shardByAllLabels`: FNV-1a of tenant then each name and value, in the given order. */
export function shardByAllLabels(tenant: string, labels: readonly string[]): number {
  let h = fnv32aAdd(FNV32_OFFSET, tenant);
  for (let i = 0; i < labels.length; i++) h = fnv32aAdd(h, labels[i] as string);
  return h;
}

/**
 * The token of one series' flat labels (`name0, value0, ...`). Sharding by metric name uses the
 * first `__name__`; a series without one (only possible with `enforce_metric_name: false`)
 * hashes an empty name, where Cortex would fail the whole push.
 */
export function tokenForSeries(
  tenant: string,
  labels: readonly string[],
  shardByAll: boolean,
): number {
  if (shardByAll) return shardByAllLabels(tenant, labels);
  for (let i = 0; i + 1 < labels.length; i += 2) {
    if (labels[i] === METRIC_NAME_LABEL) return shardByMetricName(tenant, labels[i + 1] as string);
  }
  return shardByMetricName(tenant, '');
}
