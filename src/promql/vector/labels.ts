// Label-set helpers of vector matching and aggregation: the default engine's own (exported
// from its module so both engines compute labels identically), plus a string key per label set.
import type { Labels } from '../../model/index.js';

export {
  dropMetadataLabels,
  keepLabels,
  matchLabels,
  setLabel,
  signatureFunction,
} from '../engine/index.js';

/** A string identifying a label set. */
export function labelsKey(l: Labels): string {
  return l.key();
}
