import type { Clock } from '../runtime/clock.js';
import { ProtocolError, ResponseParser, type Response } from './memcached_protocol.js';

/**
 * A byte-stream transport to a memcached server. The real process dials TCP (`node:net`);
 * the simulator and unit tests hand in in-memory streams with faults of their own choosing.
 */
export interface Dialer {
  /**
   * Connects to `host:port`. `handlers` see every received chunk in order and one close
   * (with the error, if any, that caused it). Rejects when the connection cannot be made.
   */
  connect(
    host: string,
    port: number,
    handlers: StreamHandlers,
    timeoutMs: number,
  ): Promise<ByteStream>;
}

export interface StreamHandlers {
  onData(chunk: Uint8Array): void;
  onClose(err?: Error): void;
}

export interface ByteStream {
  write(data: Uint8Array): void;
  /** Closes the stream at once; `onClose` follows (or has already happened). */
  destroy(): void;
}

/** Why an operation failed; the values are the `reason` labels of Thanos' failure counter. */
export type FailureReason =
  'timeout' | 'network-error' | 'server-error' | 'malformed-key' | 'other';

export class MemcachedError extends Error {
  override readonly name = 'MemcachedError';
  constructor(
    readonly reason: FailureReason,
    message: string,
  ) {
    super(message);
  }
}

/** Decides, frame by frame, when an exchange is complete: `undefined` means "more to come". */
export type FrameHandler<T> = (frame: Response) => T | undefined;

interface Exchange {
  handle: (frame: Response) => boolean;
  fail: (err: MemcachedError) => void;
}

/**
 * One connection: a single exchange (request bytes out, frames in until the handler is
 * satisfied) at a time. Anything unexpected — a frame with no exchange waiting, bytes that
 * do not parse, a close, a timeout — breaks the connection for good; the pool drops it.
 */
export class MemcachedConnection {
  private readonly parser: ResponseParser;
  private stream: ByteStream | undefined;
  private exchange: Exchange | undefined;
  private brokenBy: MemcachedError | undefined;

  private constructor(
    readonly server: string,
    maxBodyBytes: number,
  ) {
    this.parser = new ResponseParser(maxBodyBytes);
  }

  /** Dials; rejects with a MemcachedError (network-error or timeout) within `timeoutMs`. */
  static async open(
    dialer: Dialer,
    server: { address: string; host: string; port: number },
    opts: { timeoutMs: number; maxBodyBytes: number; clock: Clock },
  ): Promise<MemcachedConnection> {
    const conn = new MemcachedConnection(server.address, opts.maxBodyBytes);
    const handlers: StreamHandlers = {
      onData: (chunk) => conn.receive(chunk),
      onClose: (err) =>
        conn.break(
          new MemcachedError('network-error', `connection closed${err ? `: ${err.message}` : ''}`),
        ),
    };
    const dialed = dialer.connect(server.host, server.port, handlers, opts.timeoutMs);
    const stream = await withTimeout(opts.clock, dialed, opts.timeoutMs, () => {
      // A dial that completes after we gave up must not leak its socket.
      void dialed.then(
        (s) => s.destroy(),
        () => undefined,
      );
      return new MemcachedError('timeout', `connect to ${server.address} timed out`);
    }).catch((err: unknown) => {
      throw err instanceof MemcachedError
        ? err
        : new MemcachedError('network-error', `connect to ${server.address}: ${String(err)}`);
    });
    conn.stream = stream;
    if (conn.brokenBy !== undefined) {
      stream.destroy();
      throw conn.brokenBy;
    }
    return conn;
  }

  get broken(): boolean {
    return this.brokenBy !== undefined;
  }

  /**
   * Sends `request` and feeds the response frames to `handler` until it returns a value.
   * Rejects (and breaks the connection) on timeout, close or garbage.
   */
  roundTrip<T>(
    request: Uint8Array,
    handler: FrameHandler<T>,
    timeoutMs: number,
    clock: Clock,
  ): Promise<T> {
    if (this.brokenBy !== undefined) return Promise.reject(this.brokenBy);
    if (this.exchange !== undefined) {
      return Promise.reject(new MemcachedError('other', 'connection already in use'));
    }
    return new Promise<T>((resolve, reject) => {
      const timer = clock.setTimer(timeoutMs, () =>
        this.break(
          new MemcachedError('timeout', `${this.server}: no answer within ${timeoutMs}ms`),
        ),
      );
      this.exchange = {
        handle: (frame) => {
          const result = handler(frame);
          if (result === undefined) return false;
          timer.cancel();
          this.exchange = undefined;
          resolve(result);
          return true;
        },
        fail: (err) => {
          timer.cancel();
          this.exchange = undefined;
          reject(err);
        },
      };
      try {
        this.stream!.write(request);
      } catch (err) {
        this.break(new MemcachedError('network-error', `write to ${this.server}: ${String(err)}`));
      }
    });
  }

  destroy(): void {
    this.break(new MemcachedError('network-error', 'connection closed by the client'));
  }

  private receive(chunk: Uint8Array): void {
    if (this.brokenBy !== undefined) return;
    try {
      for (const frame of this.parser.push(chunk)) {
        if (this.exchange === undefined) throw new ProtocolError('response without a request');
        this.exchange.handle(frame);
      }
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.break(new MemcachedError('other', `${this.server}: ${message}`));
    }
  }

  private break(err: MemcachedError): void {
    if (this.brokenBy !== undefined) return;
    this.brokenBy = err;
    const exchange = this.exchange;
    this.exchange = undefined;
    this.stream?.destroy();
    exchange?.fail(err);
  }
}

/** Races `promise` against a clock timer; `onTimeout` makes the rejection. */
export function withTimeout<T>(
  clock: Clock,
  promise: Promise<T>,
  ms: number,
  onTimeout: () => Error,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = clock.setTimer(ms, () => reject(onTimeout()));
    promise.then(
      (v) => {
        timer.cancel();
        resolve(v);
      },
      (err: unknown) => {
        timer.cancel();
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}
