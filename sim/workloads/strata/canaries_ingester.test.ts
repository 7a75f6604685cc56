import { describe, expect, it } from 'vitest';
import {
  buildWriteRequest,
  decodeWriteRequest,
  encodeWriteRequest,
} from '../../../src/distributor/index.js';
import { INGESTER_PUSH, TENANT_RPC_HEADER } from '../../../src/ingester/index.js';
import type { RpcHandler, RpcRequest, Transport } from '../../../src/runtime/index.js';
import { CapturingLogger } from '../../../src/runtime/testing/index.js';
import { PAGE_SIZE } from '../../../src/tsdb/index.js';
import { DiskFileSystem } from '../../testing/index.js';
import { DoubleApplyRetryTransport, DropLastWalPageFileSystem } from './canaries_ingester.js';

const WAL = '/data/tsdb/team-a/wal';

describe('drop_last_wal_page', () => {
  it("cuts the newest segment back to its last page boundary on the WAL's first listing only", async () => {
    const disk = new DiskFileSystem();
    await disk.mkdir(WAL, { recursive: true });
    await disk.writeFile(`${WAL}/00000000`, new Uint8Array(PAGE_SIZE + 100));
    await disk.writeFile(`${WAL}/00000001`, new Uint8Array(2 * PAGE_SIZE + 7));
    const fs = new DropLastWalPageFileSystem(disk, new CapturingLogger());
    expect(await fs.readdir(WAL)).toEqual(['00000000', '00000001']);
    expect((await disk.stat(`${WAL}/00000000`))?.size).toBe(PAGE_SIZE + 100);
    expect((await disk.stat(`${WAL}/00000001`))?.size).toBe(2 * PAGE_SIZE);
    // Later listings in the same life (checkpoints, truncation) leave the log alone.
    await fs.readdir(WAL);
    expect((await disk.stat(`${WAL}/00000001`))?.size).toBe(2 * PAGE_SIZE);
    // A full last page goes whole; other directories are never touched.
    await disk.writeFile(`${WAL}/00000002`, new Uint8Array(PAGE_SIZE));
    await new DropLastWalPageFileSystem(disk, new CapturingLogger()).readdir(WAL);
    expect((await disk.stat(`${WAL}/00000002`))?.size).toBe(0);
    await disk.writeFile('/data/tsdb/team-a/00000009', new Uint8Array(10));
    await fs.readdir('/data/tsdb/team-a');
    expect((await disk.stat('/data/tsdb/team-a/00000009'))?.size).toBe(10);
  });
});

describe('double_apply_retry', () => {
  it('applies a push body seen before a second time, 1ms later, and answers as the first', async () => {
    const handlers = new Map<string, RpcHandler>();
    const inner = {
      address: 'ingester-1',
      handle: (method: string, h: RpcHandler) => void handlers.set(method, h),
    } as unknown as Transport;
    const applied: number[][] = [];
    const real: RpcHandler = (req) => {
      applied.push([...decodeWriteRequest(req.body).timestamps]);
      return Promise.resolve({ body: new Uint8Array([1]), contentType: 'x' });
    };
    new DoubleApplyRetryTransport(inner, new CapturingLogger()).handle(INGESTER_PUSH, real);
    const body = encodeWriteRequest(
      buildWriteRequest({
        series: [
          {
            labels: [['__name__', 'm']],
            samples: [
              { value: 1, timestamp: 1000 },
              { value: 2, timestamp: 2000 },
            ],
          },
        ],
      }),
    );
    const req = (tenant: string): RpcRequest => ({
      method: INGESTER_PUSH,
      body,
      contentType: 'application/x-protobuf',
      headers: { [TENANT_RPC_HEADER]: tenant },
    });
    const wrapped = handlers.get(INGESTER_PUSH)!;
    const signal = new AbortController().signal;
    await wrapped(req('team-a'), signal);
    await wrapped(req('team-b'), signal); // another tenant's push is not a retry
    expect(applied).toEqual([
      [1000, 2000],
      [1000, 2000],
    ]);
    const answer = await wrapped(req('team-a'), signal);
    expect(answer.body).toEqual(new Uint8Array([1]));
    expect(applied.slice(2)).toEqual([
      [1000, 2000],
      [1001, 2001],
    ]);
  });
});
