/**
 * Readers for scenario-file fields (durations, latency distributions, strict mappings) shared
 * by the scenario parser and the workloads' own sections. Every error names the key path and
 * the bad value. Pure parsing: no simulation state, no IO.
 */
export { DurationError, formatDuration, parseDuration } from './duration.js';
export {
  ScenarioError,
  readArray,
  readBoolean,
  readChoice,
  readDuration,
  readLatency,
  readNumber,
  readObject,
  readProbability,
  readString,
  readStringList,
  splitKeyPath,
  type Fields,
  type PathSegment,
} from './readers.js';
