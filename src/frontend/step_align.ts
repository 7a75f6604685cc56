/**
 * `-querier.align-querier-with-step` (Cortex StepAlignMiddleware): start and end are moved
 * down to a multiple of the step, so that dashboards refreshing every few seconds ask the
 * same question and hit the results cache. The answer is then the one for the aligned range.
 */
import type { RangeMiddleware } from './handler.js';
import { withStartEnd } from './range_request.js';

/** Go's integer division `t / step * step`: truncation toward zero, as Cortex computes it. */
export function alignToStep(t: number, step: number): number {
  return Math.trunc(t / step) * step;
}

export const stepAlignMiddleware: RangeMiddleware = (next) => (req, signal) =>
  next(withStartEnd(req, alignToStep(req.start, req.step), alignToStep(req.end, req.step)), signal);
