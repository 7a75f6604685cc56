/**
 * Swarm runs (`strata sim --swarm N`): many seeds, each with a fault mix drawn from its own
 * seed within a family's bounds (topology size, which fault kinds are on, their rates and
 * times), run in parallel worker processes. A family states the promise its faults stay
 * within, so a failed run is a broken promise of the system. A run replays alone with
 * `strata sim <scenario> --seed S --swarm-profile <family>:<seed>`.
 */
export {
  EPISODE_KINDS,
  episodePromiseViolation,
  episodeSchedule,
  generateEpisodes,
  type Episode,
  type EpisodeBounds,
  type EpisodeKind,
} from './episodes.js';
export type { DerivedMix, ScenarioDoc, SwarmFamily } from './family.js';
export {
  SWARM_FAMILIES,
  defaultSwarmFamilies,
  deriveSwarmScenario,
  findSwarmFamily,
  formatSwarmProfile,
  parseSwarmProfile,
  swarmReplayCommand,
  type DerivedSwarmScenario,
  type SwarmProfile,
} from './profile.js';
export {
  loadSwarmProfileScenario,
  runSwarmCommand,
  withSwarmProfile,
  type SwarmCommandOptions,
} from './swarm_command.js';
export {
  formatSwarmFailure,
  runSwarmJob,
  type SwarmJob,
  type SwarmRunResult,
} from './swarm_job.js';
export { swarmWorkerModule, workerLanes } from './swarm_pool.js';
export {
  formatSwarmSummary,
  runSwarm,
  swarmJobs,
  type SwarmLane,
  type SwarmPlan,
  type SwarmSummary,
} from './swarm_runner.js';
