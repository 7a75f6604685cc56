import { describe, expect, it } from 'vitest';
import { createSeededRandom } from '../runtime/index.js';
import { MemoryNetwork } from '../runtime/memory/index.js';
import { CapturingLogger, ManualClock } from '../runtime/testing/index.js';
import { FrontendDispatcher } from './frontend_dispatcher.js';
import { decode, errorAnswer, rpc, type HttpMessage, type PullResponse } from './protocol.js';
import { QuerierWorker } from './querier_worker.js';
import { QueueService } from './queue_service.js';
import type { RequestListener } from '../server/index.js';

const text = (m: HttpMessage): string => new TextDecoder().decode(m.body);
const get = (url: string): HttpMessage => ({
  method: 'GET',
  url,
  headers: {},
  body: new Uint8Array(0),
});

/** A querier's HTTP handler that answers `<querier> <url>`, or never when `hang` says so. */
function handler(name: string, hang: (url: string) => boolean = () => false): RequestListener {
  return (req: { url: string }, res: { statusCode: number; end(b: string): void }) => {
    if (hang(req.url)) return;
    res.statusCode = 200;
    res.end(`${name} ${req.url}`);
  };
}

async function setup() {
  const clock = new ManualClock(1_000_000);
  const net = new MemoryNetwork();
  const logger = new CapturingLogger();
  const transport = net.transport('frontend:9095');
  const local = new QueueService(
    { role: 'frontend', querierTimeoutMs: 5_000, forgetDelayMs: 0 },
    {
      clock,
      transport,
      logger,
      limits: { maxOutstanding: () => 100, maxQueriers: () => 0 },
    },
  );
  const dispatcher = new FrontendDispatcher(
    { schedulerAddress: '', timeoutMs: 60_000 },
    { clock, transport, logger, random: createSeededRandom('frontend').stream('ids'), local },
  );
  await transport.listen();
  local.start();
  const workers: QuerierWorker[] = [];
  const worker = async (name: string, h: RequestListener): Promise<QuerierWorker> => {
    const t = net.transport(`${name}:9095`);
    await t.listen();
    const w = new QuerierWorker(
      {
        address: 'frontend:9095',
        role: 'frontend',
        querierId: name,
        parallelism: 2,
        pullWaitMs: 10_000,
        heartbeatMs: 1_000,
        queryTimeoutMs: 30_000,
      },
      { clock, transport: t, logger, handler: h },
    );
    w.start();
    workers.push(w);
    await clock.advance(0);
    return w;
  };
  return { clock, net, local, dispatcher, worker, workers };
}

describe('frontend queue, querier workers and dispatcher', () => {
  it("answers a queued request with the querier's HTTP answer", async () => {
    const s = await setup();
    await s.worker('querier-1', handler('querier-1'));
    const answer = await s.dispatcher.roundTrip('team-a', get('/api/v1/query?query=up'));
    expect(answer.status).toBe(200);
    expect(text(answer)).toBe('querier-1 /api/v1/query?query=up');
    expect(s.local.queriers).toEqual(['querier-1']);
  });

  it('fails the queries of a querier that falls silent with a retryable 502', async () => {
    const s = await setup();
    // A querier pulls one query by hand, then never calls again (its process died).
    const querier = s.net.transport('querier-1:9095');
    await querier.listen();
    const pending = s.dispatcher.roundTrip('team-a', get('/slow'));
    const pulled = decode<PullResponse>(
      await querier.call(
        'frontend:9095',
        rpc('frontend.Pull', { querier: 'querier-1', cursor: -1, waitMs: 1_000 }),
      ),
      'pull answer',
    );
    expect(pulled.query?.request.url).toBe('/slow');
    expect(s.local.queriers).toEqual(['querier-1']);
    await s.clock.advance(4_000);
    await s.clock.advance(3_000);
    const answer = await pending;
    expect(answer.status).toBe(502);
    expect(text(answer)).toContain('querier querier-1 disconnected while running the query');
    expect(s.local.queriers).toEqual([]);
  });

  it("fails a query the querier's heartbeats never mention (its pull answer was lost)", async () => {
    const s = await setup();
    const querier = s.net.transport('querier-1:9095');
    await querier.listen();
    const pending = s.dispatcher.roundTrip('team-a', get('/lost'));
    const pull = { querier: 'querier-1', cursor: -1, waitMs: 1_000 };
    await querier.call('frontend:9095', rpc('frontend.Pull', pull));
    // Alive, but running nothing: within the timeout that is a pull answer still on its way.
    const beat = () =>
      querier.call(
        'frontend:9095',
        rpc('frontend.Heartbeat', { querier: 'querier-1', running: [] }),
      );
    await s.clock.advance(1_000);
    await beat();
    let settled = false;
    void pending.then(() => (settled = true));
    await s.clock.advance(0);
    expect(settled).toBe(false);
    await s.clock.advance(5_000);
    await beat();
    const answer = await pending;
    expect(answer.status).toBe(502);
    expect(text(answer)).toContain('querier querier-1 lost the query');
  });

  it('answers 504 when no querier answers in time, and forgets the pending query', async () => {
    const s = await setup();
    const pending = s.dispatcher.roundTrip('team-a', get('/nobody'));
    await s.clock.advance(61_000);
    const answer = await pending;
    expect(answer.status).toBe(504);
    // A querier connecting later does not get the abandoned query's answer delivered twice.
    expect(s.local.queue.length('team-a')).toBe(1);
  });

  it('answers 499 when the caller gives up, and drops the query from the queue', async () => {
    const s = await setup();
    const abort = new AbortController();
    const pending = s.dispatcher.roundTrip('team-a', get('/gone'), abort.signal);
    abort.abort();
    expect((await pending).status).toBe(499);
    await s.worker('querier-1', handler('querier-1'));
    // The next query is the first the querier runs: the abandoned one was skipped.
    const answer = await s.dispatcher.roundTrip('team-a', get('/next'));
    expect(text(answer)).toBe('querier-1 /next');
  });

  it('forgets a querier that leaves gracefully at once', async () => {
    const s = await setup();
    const w = await s.worker('querier-1', handler('querier-1'));
    expect(s.local.queriers).toEqual(['querier-1']);
    await w.stop();
    await s.clock.advance(0);
    expect(s.local.queriers).toEqual([]);
  });

  it('never takes a late answer for an earlier process on its address as the answer to a new query', async () => {
    const clock = new ManualClock(0);
    const net = new MemoryNetwork();
    const logger = new CapturingLogger();
    // A scheduler that only records what it is asked to queue.
    const scheduler = net.transport('scheduler:9095');
    const queued: string[] = [];
    scheduler.handle('scheduler.Enqueue', (req) => {
      queued.push(decode<{ query: { id: string } }>(req, 'enqueue').query.id);
      return Promise.resolve({ body: new Uint8Array(), contentType: 'application/json' });
    });
    await scheduler.listen();
    const frontendProcess = async (seed: string) => {
      const transport = net.transport('frontend:9095');
      const dispatcher = new FrontendDispatcher(
        { schedulerAddress: 'scheduler:9095', timeoutMs: 60_000 },
        { clock, transport, logger, random: createSeededRandom(seed).stream('frontend/query-ids') },
      );
      await transport.listen();
      return { transport, dispatcher };
    };
    const first = await frontendProcess('process-1');
    void first.dispatcher.roundTrip('team-a', get('/before-restart'));
    await clock.advance(0);
    // The frontend restarts on the same address and queues its first query.
    await first.transport.close();
    const second = await frontendProcess('process-2');
    let answered: HttpMessage | undefined;
    void second.dispatcher.roundTrip('team-a', get('/after-restart')).then((a) => (answered = a));
    await clock.advance(0);
    expect(queued).toHaveLength(2);
    expect(queued[0]).not.toBe(queued[1]);
    const result = (id: string, body: string) =>
      scheduler.call(
        'frontend:9095',
        rpc('frontend.Result', {
          id,
          response: { status: 200, headers: {}, body: new TextEncoder().encode(body) },
        }),
      );
    // The querier's late answer to the first process's query matches nothing now.
    await result(queued[0] as string, 'stale');
    await clock.advance(0);
    expect(answered).toBeUndefined();
    await result(queued[1] as string, 'fresh');
    await clock.advance(0);
    expect(answered === undefined ? undefined : text(answered)).toBe('fresh');
  });

  it('turns an error answer into the HTTP message a client sees', () => {
    const m = errorAnswer(429, 'too many outstanding requests');
    expect(m.status).toBe(429);
    expect(text(m)).toBe('too many outstanding requests\n');
  });
});
