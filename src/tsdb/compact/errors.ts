// The one error type of the compaction module, shared by the compactor and the planner.

/** Compaction inputs or planner settings are unusable; the message names the bad value. */
export class CompactionError extends Error {
  override readonly name = 'CompactionError';
}
