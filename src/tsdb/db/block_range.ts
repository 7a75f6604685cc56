// When the head is due to be cut (Prometheus head.compactable). Where the cut block ends is
// chunkenc's rangeForTimestamp, the same arithmetic Prometheus shares between both.

/**
 * Prometheus's head.compactable: the head spans more than 1.5 chunk ranges
 * (`MaxTime - MinTime > chunkRange/2*3`, integer arithmetic), so a block of one chunk range
 * can be cut while the head keeps at least half a range of recent data.
 */
export function headCompactable(
  headMinTime: number,
  headMaxTime: number,
  chunkRange: number,
): boolean {
  return headMaxTime - headMinTime > Math.trunc(chunkRange / 2) * 3;
}
