/**
 * The query queue between query-frontends and queriers (Cortex's pkg/scheduler and
 * pkg/frontend/v1 queueing): per-tenant FIFO queues served round-robin with 429 bounds and
 * querier shuffle sharding, served over the Transport by a frontend or by the query-scheduler,
 * the frontend's dispatcher that queues HTTP requests and awaits their answers, and the
 * querier worker that pulls queries and runs them through the querier's own HTTP routes.
 *
 * It must never interpret a query (the frontend's middlewares and the querier do that), never
 * drop a queued request silently (every request gets an HTTP answer: the querier's, or
 * 429/499/502/503/504), and never keep time or randomness but through the injected Clock.
 */
export {
  FIRST_TENANT,
  QueueStoppedError,
  RequestQueue,
  TooManyOutstandingRequestsError,
  type Dequeued,
  type QueueLimits,
  type QueueMetrics,
  type RequestQueueConfig,
  type RequestQueueDeps,
  type RequestQueueFactory,
  type TenantCursor,
} from './request_queue.js';
export { tenantQueriers } from './querier_shards.js';
export { QueueService, runningKey, type QueueServiceConfig } from './queue_service.js';
export { FrontendDispatcher, type FrontendDispatcherConfig } from './frontend_dispatcher.js';
export { QuerierWorker, type QuerierWorkerConfig } from './querier_worker.js';
export { QueryScheduler, type QuerySchedulerConfig } from './scheduler.js';
export { errorAnswer, type HttpMessage } from './protocol.js';
export { queueMetrics } from './queue_metrics.js';
