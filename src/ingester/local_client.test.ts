import { describe, expect, it } from 'vitest';
import { DiskFileSystem } from '../../sim/testing/index.js';
import { Matcher } from '../model/index.js';
import { RpcError } from '../runtime/index.js';
import { CapturingLogger, ManualClock } from '../runtime/testing/index.js';
import type { IngesterClient } from './client.js';
import { INGESTER_ADDR, batch, buildHarness, lines, series } from './ingester_harness.testing.js';
import { LocalFirstIngesterClient } from './local_client.js';
import { toWireMatchers } from './wire.js';

const START = 1_700_000_000_000;

/** A remote client that records what reached it. */
function recordingRemote(calls: string[]): IngesterClient {
  const reject = (what: string) => (addr: string) => {
    calls.push(`${what} ${addr}`);
    return Promise.reject(new RpcError('unavailable', `remote ${what} to ${addr}`));
  };
  return {
    push: reject('push'),
    queryStream: reject('queryStream'),
    labelNames: reject('labelNames'),
    labelValues: reject('labelValues'),
    userStats: reject('userStats'),
    allUserStats: reject('allUserStats'),
    metricsMetadata: reject('metricsMetadata'),
    seriesLabels: reject('seriesLabels'),
  };
}

describe('LocalFirstIngesterClient', () => {
  it("pushes to this process's ingester directly, with the RPC's outcomes, and sends the rest on", async () => {
    const clock = new ManualClock(START);
    const h = await buildHarness({
      clock,
      fs: new DiskFileSystem(),
      logger: new CapturingLogger(),
    });
    const calls: string[] = [];
    const local = new LocalFirstIngesterClient(recordingRemote(calls), () => h.ingester);
    // Before the ingester runs it has no ring address: everything goes remote.
    await expect(
      local.push(INGESTER_ADDR, 't1', batch(series('up', {}, [START, 1])), 'api'),
    ).rejects.toThrow(/remote push/);
    await h.ingester.start(new AbortController().signal);
    await clock.advance(0);
    expect(h.ingester.ringAddress).toBe(INGESTER_ADDR);

    await local.push(INGESTER_ADDR, 't1', batch(series('up', {}, [START, 1])), 'api');
    // A sample the head refuses: the same invalid_argument the RPC answers, the rest kept.
    const refused = await local
      .push(
        INGESTER_ADDR,
        't1',
        batch(series('up', {}, [START - 1, 2]), series('down', {}, [START, 3])),
        'api',
      )
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RpcError);
    expect((refused as RpcError).code).toBe('invalid_argument');
    expect(calls).toEqual(['push ingester-1:9095']);

    const req = {
      start: START - 10,
      end: START + 10,
      matchers: toWireMatchers([Matcher.regex('__name__', '.+')]),
    };
    const got = await h.client.queryStream(INGESTER_ADDR, 't1', req);
    expect(lines(got)).toEqual([`{__name__="down"} ${START}=3`, `{__name__="up"} ${START}=1`]);
    // Queries of this process's ingester are answered in-process, chunks as the RPC sends them.
    const direct = await local.queryStream(INGESTER_ADDR, 't1', req);
    expect(lines(direct)).toEqual(lines(got));
    expect(direct.map((s) => s.chunks.map((c) => [...c.data]))).toEqual(
      got.map((s) => s.chunks.map((c) => [...c.data])),
    );
    await expect(local.queryStream('elsewhere:9095', 't1', req)).rejects.toThrow(
      /remote queryStream to elsewhere/,
    );

    await expect(
      local.push('elsewhere:9095', 't1', batch(series('up', {}, [START, 1])), 'api'),
    ).rejects.toThrow(/remote push to elsewhere/);
    await expect(local.userStats(INGESTER_ADDR, 't1')).rejects.toThrow(/remote userStats/);
    await h.ingester.stop();
  });
});
