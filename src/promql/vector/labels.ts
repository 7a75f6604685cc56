// Label-set helpers of vector matching and aggregation: the default engine's own (exported
// from its module so both engines compute labels identically). A label set's own key is
// Labels.key().
export {
  dropMetadataLabels,
  keepLabels,
  matchLabels,
  setLabel,
  signatureFunction,
} from '../engine/index.js';
