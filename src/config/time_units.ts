/** Millisecond multipliers for writing defaults readably (`6 * HOUR`). */
export const MS = 1;
export const SECOND = 1000 * MS;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
