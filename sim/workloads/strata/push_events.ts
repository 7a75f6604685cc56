import type { RunEvent, SampleRef } from '../workload.js';
import type { LedgerSample, PushRecord } from './ledger.js';

/**
 * A push's attempts as report events on its writer: each send, and each answer by outcome
 * (`push.acked` for 2xx, `push.refused` for 4xx, `push.unknown` for 5xx, 429, timeouts).
 */
export function pushEvents(push: PushRecord): RunEvent[] {
  const out: RunEvent[] = [];
  const what = `push #${push.id} of ${push.tenant} (${push.samples.length} samples)`;
  push.attempts.forEach((a, i) => {
    const n = `attempt ${i + 1}`;
    out.push({ at: a.sentAt, node: push.writer, kind: 'push.sent', detail: `${what} ${n}` });
    if (a.respondedAt === undefined || a.outcome === undefined) return;
    const o = a.outcome;
    const kind =
      o.kind === 'ok' ? 'push.acked' : o.kind === 'rejected' ? 'push.refused' : 'push.unknown';
    const answer = o.kind === 'ok' ? String(o.status) : `${o.code} ${o.message}`;
    out.push({ at: a.respondedAt, node: push.writer, kind, detail: `${what} ${n}: ${answer}` });
  });
  return out;
}

/** The events of one sample: its push's attempts, or its scrape when no push carried it. */
export function sampleEvents(s: LedgerSample): RunEvent[] {
  if (s.push !== undefined && s.push.attempts.length > 0) return pushEvents(s.push);
  return [
    {
      at: s.scrapedAt,
      node: s.writer,
      kind: 'sample.scraped',
      detail: `${s.tenant} ${s.series} t=${s.timestamp} (never sent)`,
    },
  ];
}

export function sampleRef(s: LedgerSample): SampleRef {
  return { tenant: s.tenant, series: s.series, timestamp: s.timestamp };
}

/** A read of a tenant as a report event (on the cluster lane: checks do not know the reader's name). */
export function readEvent(
  label: string,
  tenant: string,
  startedAt: number,
  answeredAt: number,
): RunEvent {
  return {
    at: startedAt,
    until: answeredAt,
    node: '-',
    kind: 'read',
    detail: `${label} of ${tenant}`,
  };
}
