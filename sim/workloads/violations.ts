import type { CheckResult, Violation } from './workload.js';

const MAX_LISTED = 10;

/**
 * The failures a check collects: each a line for the report's detail and, when the check
 * knows it, the evidence (when it showed, the events and samples involved) that the report
 * uses to name the first violation and draw it.
 */
export class Failures {
  readonly messages: string[] = [];
  readonly violations: Violation[] = [];

  constructor(initial: readonly string[] = []) {
    for (const m of initial) this.add(m);
  }

  get length(): number {
    return this.messages.length;
  }

  add(message: string, evidence: Partial<Omit<Violation, 'message'>> = {}): void {
    this.messages.push(message);
    this.violations.push({ ...evidence, message, events: evidence.events ?? [] });
  }

  /** The check's result: `ok` when nothing failed, else `<n> <what>: <first few>`. */
  verdict(name: string, what: string, ok: string): CheckResult {
    if (this.messages.length === 0) return { name, verdict: 'pass', detail: ok };
    const shown = this.messages.slice(0, MAX_LISTED).join('; ');
    const more = this.messages.length > MAX_LISTED ? `; … (${this.messages.length} in all)` : '';
    return {
      name,
      verdict: 'fail',
      detail: `${this.messages.length} ${what}: ${shown}${more}`,
      violations: this.violations,
    };
  }
}
