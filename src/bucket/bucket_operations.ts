/**
 * The operation names Thanos objstore uses in its metrics (`operation` label) and in Strata's
 * per-operation settings (timeouts), one per Bucket method; `list` is Thanos's `iter`.
 */
export type BucketOperation =
  'iter' | 'get' | 'get_range' | 'exists' | 'upload' | 'delete' | 'attributes';

/** Every operation, in the order Thanos pre-registers their metric series. */
export const BUCKET_OPERATIONS: readonly BucketOperation[] = [
  'iter',
  'get',
  'get_range',
  'exists',
  'upload',
  'delete',
  'attributes',
];
