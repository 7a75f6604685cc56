/**
 * memcached's text protocol, spoken directly to one server: the tests read and overwrite
 * entries behind Strata's back (a truncated value, another key's value) to check that the
 * query-frontend ignores and replaces them.
 */
import { connect } from 'node:net';

/** Sends `request` and collects the reply until `done(reply)` holds. */
function exchange(
  port: number,
  request: Buffer,
  done: (reply: Buffer) => boolean,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    let reply = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`memcached :${port}: no complete reply in 5 s: ${reply.toString()}`));
    }, 5_000);
    socket.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.on('data', (d: Buffer) => {
      reply = Buffer.concat([reply, d]);
      if (done(reply)) {
        clearTimeout(timer);
        socket.destroy();
        resolve(reply);
      }
    });
    socket.write(request);
  });
}

/** The value stored under `key` on the server at `port`, undefined when absent. */
export async function memcachedGet(port: number, key: string): Promise<Buffer | undefined> {
  const reply = await exchange(port, Buffer.from(`get ${key}\r\n`), (r) =>
    r.subarray(-5).equals(Buffer.from('END\r\n')),
  );
  const header = /^VALUE \S+ \d+ (\d+)\r\n/.exec(reply.toString('latin1'));
  if (header === null) return undefined;
  const start = header[0].length;
  return reply.subarray(start, start + Number(header[1]));
}

/** Stores `value` under `key` (no expiry) on the server at `port`. */
export async function memcachedSet(port: number, key: string, value: Uint8Array): Promise<void> {
  const request = Buffer.concat([
    Buffer.from(`set ${key} 0 0 ${value.length}\r\n`),
    Buffer.from(value),
    Buffer.from('\r\n'),
  ]);
  const reply = await exchange(port, request, (r) => r.includes('\r\n'));
  if (reply.toString() !== 'STORED\r\n')
    throw new Error(`memcached :${port}: set ${key} answered ${reply.toString()}`);
}
