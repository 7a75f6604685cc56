/**
 * Entry point of a swarm worker process (forked by `strata sim --swarm`): runs the jobs it
 * is sent, one at a time, and answers each with its result.
 */
import { NodeFileSystem } from '../../src/runtime/real/index.js';
import { serveHostWorkerRequests } from '../kernel/index.js';
import { runSwarmJob, type SwarmJob } from './swarm_job.js';

// Failed runs' HTML pages are written by the worker that ran them (reports stay out of IPC).
const fs = new NodeFileSystem();
serveHostWorkerRequests((payload) => runSwarmJob(payload as SwarmJob, fs));
