/**
 * Entry point of a canary worker process (forked by `npm run sim:canaries`): runs the cases
 * it is sent, one at a time, and answers each with its outcome.
 */
import { serveHostWorkerRequests } from '../kernel/index.js';
import { runCanaryCase, type CanaryCase } from './run_case.js';

serveHostWorkerRequests((payload) => runCanaryCase(payload as CanaryCase));
