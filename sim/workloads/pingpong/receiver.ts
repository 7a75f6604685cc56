import {
  jsonBody,
  parseJsonBody,
  RpcError,
  type Env,
  type FileHandle,
  type RpcRequest,
  type RpcResponse,
} from '../../../src/runtime/index.js';
import type { SimProcess } from '../../cluster/index.js';
import type { PingPongConfig } from './config.js';
import { DELIVER_METHOD } from './sender.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The pingpong receiver: a tiny durable log. On start it recovers: drops a torn last line
 * (power loss mid-append), fsyncs what the page cache still holds from a crashed
 * incarnation (it may not be durable yet, and it is about to be acknowledged again), and
 * loads the ids already logged so duplicates are acknowledged without being appended again.
 * Each new id is appended, fsynced, and only then acknowledged.
 */
export function pingPongReceiver(env: Env, config: PingPongConfig): SimProcess {
  const log = env.logger.child({ role: 'receiver' });
  const bug = config.bug;
  const dir = config.logPath.slice(0, config.logPath.lastIndexOf('/'));
  const parent = dir.slice(0, dir.lastIndexOf('/')) || '/';
  /** Ids in the log, or being made durable; the promise settles when the id is durable. */
  const durable = new Map<number, Promise<void>>();
  let file: FileHandle | undefined;
  let unsynced = false;

  const recover = async (): Promise<FileHandle> => {
    await env.fs.mkdir(dir, { recursive: true });
    await env.fs.syncDir(parent);
    const handle = await env.fs.open(config.logPath, 'a');
    await env.fs.syncDir(dir);
    const bytes = await handle.read(0, await handle.size());
    const text = decoder.decode(bytes);
    const complete = text.lastIndexOf('\n') + 1;
    if (complete < text.length && bug !== 'no_recovery_truncate') {
      log.warn('dropping torn last line', { bytes: text.length - complete });
      await handle.truncate(complete);
    }
    await handle.sync();
    for (const line of text.slice(0, complete).split('\n')) {
      if (line !== '') durable.set(Number(line), Promise.resolve());
    }
    log.info('log recovered', { ids: durable.size });
    return handle;
  };

  const append = async (handle: FileHandle, id: number): Promise<void> => {
    await handle.append(encoder.encode(`${id}\n`));
    if (bug === 'ack_before_fsync') {
      unsynced = true; // the lazy flush below syncs it "soon"
      return;
    }
    await handle.sync();
  };

  const deliver = async (req: RpcRequest): Promise<RpcResponse> => {
    const { id } = parseJsonBody<{ id: unknown }>(req);
    if (typeof id !== 'number' || !Number.isSafeInteger(id) || id <= 0) {
      throw new RpcError(
        'invalid_argument',
        `message id must be a positive integer, got ${JSON.stringify(id)}`,
      );
    }
    if (file === undefined)
      throw new RpcError('unavailable', 'receiver is still recovering its log');
    const known = durable.get(id);
    if (known !== undefined && bug !== 'no_dedupe') {
      await known; // a duplicate of a message still being synced is acked only once it is durable
      return jsonBody({ id, duplicate: true });
    }
    const written = append(file, id);
    durable.set(id, written);
    try {
      await written;
    } catch (err) {
      durable.delete(id);
      throw err;
    }
    return jsonBody({ id });
  };

  return {
    async start(): Promise<void> {
      env.transport.handle(DELIVER_METHOD, (req) => deliver(req));
      file = await recover();
      if (bug === 'ack_before_fsync') {
        const handle = file;
        env.clock.every(config.lazyFsyncIntervalMs, async () => {
          if (!unsynced) return;
          unsynced = false;
          await handle.sync();
        });
      }
      await env.transport.listen();
      log.info('receiver listening');
    },
    async stop(): Promise<void> {
      await file?.sync();
      await file?.close();
    },
  };
}
