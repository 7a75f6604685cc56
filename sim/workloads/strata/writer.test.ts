import { describe, expect, it } from 'vitest';
import { decodeWriteRequest, toPlainWriteRequest } from '../../../src/distributor/index.js';
import { INGESTER_PUSH } from '../../../src/ingester/index.js';
import {
  jsonBody,
  type Env,
  type RpcHandler,
  type RpcRequest,
  type Transport,
} from '../../../src/runtime/index.js';
import { WriteLedger } from './ledger.js';
import { AckBeforeWalTransport } from './strata_process.js';
import { SimHttpError } from '../../runtime/index.js';
import { classifyPushAnswer, classifyPushFailure, encodeBatch } from './http_client.js';
import { outageEndAt } from './writer.js';

describe('writer helpers', () => {
  it('encodes a batch as one WriteRequest series per label set, samples in queue order', () => {
    const ledger = new WriteLedger();
    const a: [string, string][] = [
      ['__name__', 'm'],
      ['i', 'a'],
    ];
    const b: [string, string][] = [
      ['__name__', 'm'],
      ['i', 'b'],
    ];
    const samples = [
      ...ledger.scraped('w', 't', [{ series: 'A', labels: a, timestamp: 1, value: 10 }], 0),
      ...ledger.scraped('w', 't', [{ series: 'B', labels: b, timestamp: 1, value: 20 }], 0),
      ...ledger.scraped('w', 't', [{ series: 'A', labels: a, timestamp: 2, value: 11 }], 0),
    ];
    const plain = toPlainWriteRequest(decodeWriteRequest(encodeBatch(samples)));
    expect(plain.series.map((s) => [s.labels, s.samples])).toEqual([
      [
        a,
        [
          { value: 10, timestamp: 1 },
          { value: 11, timestamp: 2 },
        ],
      ],
      [b, [{ value: 20, timestamp: 1 }]],
    ]);
  });

  it('classifies HTTP answers as Prometheus does: 2xx ok, 4xx dropped except 429, 5xx/429/no answer retried', () => {
    expect(classifyPushAnswer(200, '')).toEqual({ kind: 'ok', status: 200 });
    expect(classifyPushAnswer(202, 'dedupe\n')).toEqual({ kind: 'ok', status: 202 });
    expect(classifyPushAnswer(400, 'out of bounds\n')).toEqual({
      kind: 'rejected',
      code: '400',
      message: 'out of bounds',
    });
    expect(classifyPushAnswer(401, 'no org id').kind).toBe('rejected');
    for (const status of [429, 500, 503])
      expect(classifyPushAnswer(status, 'x')).toMatchObject({
        kind: 'unknown',
        code: String(status),
      });
    expect(classifyPushFailure(new SimHttpError('timeout', 't'))).toMatchObject({
      kind: 'unknown',
      code: 'timeout',
    });
    for (const kind of ['unreachable', 'reset'] as const)
      expect(classifyPushFailure(new SimHttpError(kind, 'u'))).toMatchObject({
        kind: 'unknown',
        code: 'unreachable',
      });
  });

  it('finds the outage covering a time (end exclusive)', () => {
    const outages = [{ fromMs: 10, untilMs: 20 }];
    expect(outageEndAt(outages, 1_000, 1_009)).toBeUndefined();
    expect(outageEndAt(outages, 1_000, 1_010)).toBe(1_020);
    expect(outageEndAt(outages, 1_000, 1_020)).toBeUndefined();
  });
});

describe('AckBeforeWalTransport (the deliberately broken ingester)', () => {
  it('answers ingester.Push at once and runs the real handler later; other methods untouched', async () => {
    const handlers = new Map<string, RpcHandler>();
    const timers: { ms: number; fn: () => void }[] = [];
    const inner = {
      address: 'ing',
      handle: (m: string, h: RpcHandler) => void handlers.set(m, h),
    } as unknown as Transport;
    const env = {
      transport: inner,
      clock: { setTimer: (ms: number, fn: () => void) => timers.push({ ms, fn }) },
      logger: { child: () => ({ warn: () => undefined }) },
    } as unknown as Env;
    const broken = new AckBeforeWalTransport(env, 500);
    const ran: string[] = [];
    broken.handle(INGESTER_PUSH, () => {
      ran.push('push');
      return Promise.resolve(jsonBody({}));
    });
    broken.handle('ingester.QueryStream', () => {
      ran.push('query');
      return Promise.resolve(jsonBody([]));
    });
    const req: RpcRequest = { method: INGESTER_PUSH, ...jsonBody({}) };
    await handlers.get(INGESTER_PUSH)!(req, new AbortController().signal);
    expect(ran).toEqual([]); // acknowledged, nothing appended yet
    expect(timers.map((t) => t.ms)).toEqual([500]);
    timers[0]!.fn();
    expect(ran).toEqual(['push']);
    await handlers.get('ingester.QueryStream')!(req, new AbortController().signal);
    expect(ran).toEqual(['push', 'query']);
    expect(broken.address).toBe('ing');
  });
});
