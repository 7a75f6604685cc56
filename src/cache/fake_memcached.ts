import type { Clock } from '../runtime/clock.js';
import type { ByteStream, Dialer, StreamHandlers } from './connection.js';
import type { Resolver } from './discovery.js';
import {
  encodeResponse,
  HEADER_BYTES,
  Opcode,
  REQUEST_MAGIC,
  Status,
} from './memcached_protocol.js';

/** What a fake server does wrong, if anything. */
export type FakeServerFault =
  | 'none'
  /** Refuses connections. */
  | 'down'
  /** Accepts requests and never answers. */
  | 'hang'
  /** Answers with a response magic that is not 0x81. */
  | 'bad-magic'
  /** Answers a hit with the value under another key's name. */
  | 'wrong-key'
  /** Answers a hit with another stored key's name and value (the simulator's wrong values). */
  | 'other-key'
  /** Answers a hit with an opaque that was not requested. */
  | 'wrong-opaque'
  /** Sends half of its answer, then closes the connection. */
  | 'truncate';

const dec = new TextDecoder();

/**
 * An in-process memcached speaking the binary protocol (GetK/GetKQ/Get, Set, Delete, Noop),
 * for unit tests and the simulator: faults on demand, answers delayed on the clock and cut
 * into small chunks (so the client's parser sees partial frames), and counters of what it
 * was asked. Expiry follows the clock; expirations are relative seconds.
 */
export class FakeMemcached {
  readonly items = new Map<string, { value: Uint8Array; flags: number; expiresAt: number }>();
  fault: FakeServerFault = 'none';
  /** Delay of every answer, on the clock. */
  delayMs = 0;
  /** Answers are delivered in pieces of at most this many bytes. */
  chunkBytes = 7;
  /** Number of keys in each multi-get received, in order. */
  readonly getBatches: number[] = [];
  setCount = 0;
  connectionsOpened = 0;
  /** Connections with a request waiting for its answer, now and at most. */
  busy = 0;
  maxBusy = 0;

  constructor(
    readonly address: string,
    private readonly clock: Clock,
  ) {}

  get(key: string): Uint8Array | undefined {
    const item = this.items.get(key);
    if (item === undefined || this.clock.now() >= item.expiresAt) return undefined;
    return item.value;
  }

  /** The first live item stored under another name than `name`, if any. */
  private otherThan(name: string): { key: Uint8Array; value: Uint8Array } | undefined {
    for (const k of this.items.keys()) {
      const value = k === name ? undefined : this.get(k);
      if (value !== undefined) return { key: new TextEncoder().encode(k), value };
    }
    return undefined;
  }

  /** Serves one request buffer (whole frames) and returns the answer bytes. */
  handle(request: Uint8Array): Uint8Array[] {
    const out: Uint8Array[] = [];
    let at = 0;
    let batch = 0;
    while (at + HEADER_BYTES <= request.length) {
      const v = new DataView(request.buffer, request.byteOffset + at);
      if (v.getUint8(0) !== REQUEST_MAGIC) throw new Error('fake memcached: bad request magic');
      const opcode = v.getUint8(1);
      const keyLen = v.getUint16(2);
      const extrasLen = v.getUint8(4);
      const bodyLen = v.getUint32(8);
      const opaque = v.getUint32(12);
      const body = at + HEADER_BYTES;
      const extras = request.subarray(body, body + extrasLen);
      const key = request.slice(body + extrasLen, body + extrasLen + keyLen);
      const value = request.slice(body + extrasLen + keyLen, body + bodyLen);
      at = body + bodyLen;
      const name = dec.decode(key);
      switch (opcode) {
        case Opcode.Get:
        case Opcode.GetK:
        case Opcode.GetKQ:
        case Opcode.GetQ: {
          batch++;
          const quiet = opcode === Opcode.GetKQ || opcode === Opcode.GetQ;
          const withKey = opcode === Opcode.GetK || opcode === Opcode.GetKQ;
          const item = this.get(name);
          if (item === undefined) {
            if (!quiet) out.push(encodeResponse({ opcode, opaque, status: Status.KeyNotFound }));
            break;
          }
          const flags = new Uint8Array(4);
          new DataView(flags.buffer).setUint32(0, this.items.get(name)!.flags);
          const wrongKey = this.fault === 'wrong-key' ? new TextEncoder().encode(`${name}x`) : key;
          const other = this.fault === 'other-key' ? this.otherThan(name) : undefined;
          out.push(
            encodeResponse({
              opcode,
              opaque: this.fault === 'wrong-opaque' ? opaque + 1000 : opaque,
              extras: flags,
              key: withKey ? (other?.key ?? wrongKey) : new Uint8Array(0),
              value: other?.value ?? item,
            }),
          );
          break;
        }
        case Opcode.Set: {
          this.setCount++;
          const ev = new DataView(extras.buffer, extras.byteOffset, extras.length);
          const expiration = ev.getUint32(4);
          this.items.set(name, {
            value,
            flags: ev.getUint32(0),
            expiresAt: expiration === 0 ? Infinity : this.clock.now() + expiration * 1000,
          });
          out.push(encodeResponse({ opcode, opaque }));
          break;
        }
        case Opcode.Delete: {
          const existed = this.items.delete(name);
          out.push(encodeResponse({ opcode, opaque, status: existed ? 0 : Status.KeyNotFound }));
          break;
        }
        case Opcode.Noop:
          if (batch > 0) this.getBatches.push(batch);
          batch = 0;
          out.push(encodeResponse({ opcode, opaque }));
          break;
        default:
          out.push(encodeResponse({ opcode, opaque, status: Status.UnknownCommand }));
      }
    }
    if (this.fault === 'bad-magic') for (const frame of out) frame[0] = 0x42;
    return out;
  }
}

/** A Dialer reaching FakeMemcached servers by `host:port`. */
export class FakeMemcachedNetwork implements Dialer {
  private readonly servers = new Map<string, FakeMemcached>();

  constructor(private readonly clock: Clock) {}

  add(address: string): FakeMemcached {
    const server = new FakeMemcached(address, this.clock);
    this.servers.set(address, server);
    return server;
  }

  server(address: string): FakeMemcached {
    const s = this.servers.get(address);
    if (s === undefined) throw new Error(`no fake memcached at ${address}`);
    return s;
  }

  connect(host: string, port: number, handlers: StreamHandlers): Promise<ByteStream> {
    const address = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
    const server = this.servers.get(address);
    if (server === undefined || server.fault === 'down') {
      return Promise.reject(new Error(`connect ECONNREFUSED ${address}`));
    }
    server.connectionsOpened++;
    let open = true;
    const close = (): void => {
      if (!open) return;
      open = false;
      void Promise.resolve().then(() => handlers.onClose());
    };
    const deliver = (answer: Uint8Array[]): void => {
      server.busy--;
      if (!open) return;
      let bytes = answer.flatMap((f) => [...f]);
      if (server.fault === 'truncate') bytes = bytes.slice(0, Math.max(1, bytes.length >> 1));
      for (let i = 0; i < bytes.length; i += server.chunkBytes) {
        handlers.onData(Uint8Array.from(bytes.slice(i, i + server.chunkBytes)));
      }
      if (server.fault === 'truncate') close();
    };
    return Promise.resolve({
      write: (data: Uint8Array) => {
        if (!open) throw new Error('write after close');
        if (server.fault === 'down') {
          close(); // the server died: its connections reset
          return;
        }
        const answer = server.handle(data.slice());
        server.busy++;
        server.maxBusy = Math.max(server.maxBusy, server.busy);
        if (server.fault === 'hang') return;
        if (server.delayMs > 0) this.clock.setTimer(server.delayMs, () => deliver(answer));
        else void Promise.resolve().then(() => deliver(answer));
      },
      destroy: close,
    });
  }
}

/** DNS records the test edits; a name listed in `failing` fails to resolve. */
export class FakeResolver implements Resolver {
  hosts = new Map<string, string[]>();
  srv = new Map<string, { target: string; port: number }[]>();
  failing = new Set<string>();
  lookups = 0;

  lookupHost(host: string): Promise<string[]> {
    this.lookups++;
    if (this.failing.has(host) || !this.hosts.has(host))
      return Promise.reject(new Error(`ENOTFOUND ${host}`));
    return Promise.resolve(this.hosts.get(host)!);
  }

  lookupSrv(name: string): Promise<{ target: string; port: number }[]> {
    this.lookups++;
    if (this.failing.has(name) || !this.srv.has(name))
      return Promise.reject(new Error(`ENOTFOUND ${name}`));
    return Promise.resolve(this.srv.get(name)!);
  }
}
