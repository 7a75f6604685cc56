/**
 * Entry point of a swarm worker process (forked by `strata sim --swarm`): runs the jobs it
 * is sent, one at a time, and answers each with its result.
 */
import { serveHostWorkerRequests } from '../kernel/index.js';
import { runSwarmJob, type SwarmJob } from './swarm_job.js';

serveHostWorkerRequests((payload) => runSwarmJob(payload as SwarmJob));
