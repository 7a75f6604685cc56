import { EventEmitter } from 'node:events';

/**
 * The request and response objects handed to the server's handler (an express app, as a node
 * `(req, res)` listener) when a request arrives without a socket: from the simulated HTTP
 * listener, or from a frontend through the querier's worker (`dispatchInProcess`). Express re-prototypes them onto
 * `app.request`/`app.response`, which inherit from `http.IncomingMessage` and
 * `http.ServerResponse`; those prototypes reach into Node's socket and stream internals,
 * which run on `process.nextTick` and the wall clock (the `Date` header). So every method and
 * field the handler path needs is an own property here: the inherited socket machinery is
 * shadowed and never runs, while express's own helpers (`req.get`, `req.path`, `res.status`,
 * `res.send`, ...) and EventEmitter work unchanged on top of them. Nothing here schedules
 * anything but promise continuations, which drain within the kernel event that caused them.
 */

export interface ServerRequestInit {
  readonly method: string;
  /** Path and query string, as on the request line. */
  readonly url: string;
  /** Header names in any case; they arrive lower-cased, as Node's parser gives them. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array;
  /** The client's address (its node name). */
  readonly remoteAddress: string;
}

/** What the server answered: status, lower-cased headers (repeats joined by `, `), body. */
export interface ServerAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array;
}

/** The request as the handler sees it. `disconnect` is the client going away. */
export interface InProcessRequest extends EventEmitter {
  readonly socket: unknown;
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  aborted: boolean;
}

function fakeSocket(remoteAddress: string): Record<string, unknown> {
  return {
    remoteAddress,
    remotePort: 0,
    encrypted: false,
    readable: false,
    writable: true,
    destroyed: false,
    setTimeout: () => undefined,
    setNoDelay: () => undefined,
    setKeepAlive: () => undefined,
    destroy: () => undefined,
    on: () => undefined,
    once: () => undefined,
    off: () => undefined,
    removeListener: () => undefined,
  };
}

/** Builds the request: the body is yielded once by `for await (const chunk of req)`. */
export function createServerRequest(init: ServerRequestInit): InProcessRequest {
  const req = new EventEmitter() as InProcessRequest & Record<string | symbol, unknown>;
  const headers: Record<string, string> = {};
  const rawHeaders: string[] = [];
  for (const [name, value] of Object.entries(init.headers)) {
    headers[name.toLowerCase()] = value;
    rawHeaders.push(name, value);
  }
  const socket = fakeSocket(init.remoteAddress);
  let consumed = false;
  const own: Record<string | symbol, unknown> = {
    method: init.method.toUpperCase(),
    url: init.url,
    headers,
    rawHeaders,
    trailers: {},
    rawTrailers: [],
    httpVersion: '1.1',
    httpVersionMajor: 1,
    httpVersionMinor: 1,
    complete: true,
    aborted: false,
    upgrade: false,
    socket,
    connection: socket,
    readable: true,
    readableEnded: false,
    destroyed: false,
    // A plain iterator of resolved promises: nothing but microtasks, unlike a Readable.
    [Symbol.asyncIterator]: (): AsyncIterator<Buffer> => {
      const pending =
        consumed || init.body.length === 0
          ? []
          : [Buffer.from(init.body.buffer, init.body.byteOffset, init.body.byteLength)];
      consumed = true;
      req['readableEnded'] = true;
      return {
        next: (): Promise<IteratorResult<Buffer>> => {
          const value = pending.shift();
          return Promise.resolve(
            value === undefined ? { done: true, value: undefined } : { done: false, value },
          );
        },
        return: (): Promise<IteratorResult<Buffer>> => {
          pending.length = 0;
          return Promise.resolve({ done: true, value: undefined });
        },
      };
    },
    resume: () => req,
    pause: () => req,
    unpipe: () => req,
    setTimeout: () => req,
    setEncoding: () => req,
    destroy: () => {
      req['destroyed'] = true;
      return req;
    },
  };
  for (const key of Reflect.ownKeys(own))
    Object.defineProperty(req, key, { value: own[key], writable: true, configurable: true });
  return req;
}

/** The response as the handler sees it, plus the harness's view of its outcome. */
export interface InProcessResponse extends EventEmitter {
  statusCode: number;
  readonly headersSent: boolean;
  readonly writableEnded: boolean;
  readonly destroyed: boolean;
  destroy(): InProcessResponse;
}

export interface ServerResponseHooks {
  /** Called once when the handler ends the response. */
  onEnd(answer: ServerAnswer): void;
  /** Called once when the handler destroys the response before ending it (a reset connection). */
  onDestroy(): void;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const BAD_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

function headersSentError(what: string): Error {
  return Object.assign(new Error(`Cannot ${what} after they are sent to the client`), {
    code: 'ERR_HTTP_HEADERS_SENT',
  });
}

type HeaderValue = number | string | readonly string[];

/**
 * Builds the response; it reports its outcome through `hooks` exactly once. `clientGone`
 * is the client going away (its timeout passed, it aborted): the request is aborted and,
 * unless the response already ended, the response closes without an answer, as Node
 * reports a closed connection.
 */
export function createServerResponse(
  req: InProcessRequest,
  hooks: ServerResponseHooks,
): { res: InProcessResponse; clientGone(): void } {
  const res = new EventEmitter() as InProcessResponse & Record<string | symbol, unknown>;
  const headers = new Map<string, { name: string; value: HeaderValue }>();
  const chunks: Buffer[] = [];
  let settled = false;
  /** Node keeps these as getters over socket state; here they are plain flags. */
  const state = { headersSent: false, ended: false, destroyed: false };
  const isHead = req.method === 'HEAD';

  const toBuffer = (chunk: unknown, encoding?: unknown): Buffer => {
    if (typeof chunk === 'string')
      return Buffer.from(
        chunk,
        typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8',
      );
    if (chunk instanceof Uint8Array)
      return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    throw new TypeError(`response body chunk must be a string or bytes, got ${typeof chunk}`);
  };
  const setHeader = (name: string, value: HeaderValue): typeof res => {
    if (state.headersSent) throw headersSentError('set headers');
    if (!TOKEN.test(name)) throw new TypeError(`invalid HTTP header name ${JSON.stringify(name)}`);
    for (const v of Array.isArray(value) ? value : [value])
      if (BAD_VALUE.test(String(v)))
        throw new TypeError(`invalid character in HTTP header ${name}: ${JSON.stringify(v)}`);
    headers.set(name.toLowerCase(), { name, value });
    return res;
  };
  const sendHeaders = (): void => {
    state.headersSent = true;
  };
  /** 'finish' then 'close', after the handler's current step, as Node emits them. */
  const emitLater = (...events: string[]): void => {
    void Promise.resolve().then(() => {
      for (const e of events) res.emit(e);
    });
  };
  const own: Record<string, unknown> = {
    statusCode: 200,
    statusMessage: '',
    sendDate: false,
    socket: req.socket,
    connection: req.socket,
    setHeader,
    appendHeader: (name: string, value: HeaderValue): typeof res => {
      const prev = headers.get(name.toLowerCase());
      if (prev === undefined) return setHeader(name, value);
      const list = [prev.value, value].flat().map(String);
      return setHeader(prev.name, list);
    },
    getHeader: (name: string): HeaderValue | undefined => headers.get(name.toLowerCase())?.value,
    getHeaders: (): Record<string, HeaderValue> => {
      const out = Object.create(null) as Record<string, HeaderValue>;
      for (const [k, v] of headers) out[k] = v.value;
      return out;
    },
    getHeaderNames: (): string[] => [...headers.keys()],
    hasHeader: (name: string): boolean => headers.has(name.toLowerCase()),
    removeHeader: (name: string): void => {
      if (state.headersSent) throw headersSentError('remove headers');
      headers.delete(name.toLowerCase());
    },
    writeHead: (status: number, ...rest: unknown[]): typeof res => {
      if (state.headersSent) throw headersSentError('write headers');
      if (!Number.isInteger(status) || status < 100 || status > 999)
        throw new RangeError(`invalid HTTP status code ${status}`);
      res.statusCode = status;
      let extra = rest[0];
      if (typeof extra === 'string') {
        res['statusMessage'] = extra;
        extra = rest[1];
      }
      if (Array.isArray(extra)) {
        for (let i = 0; i + 1 < extra.length; i += 2)
          setHeader(String(extra[i]), extra[i + 1] as HeaderValue);
      } else if (extra !== undefined && extra !== null) {
        for (const [k, v] of Object.entries(extra as Record<string, HeaderValue>)) setHeader(k, v);
      }
      sendHeaders();
      return res;
    },
    flushHeaders: (): void => sendHeaders(),
    write: (chunk: unknown, encoding?: unknown, cb?: unknown): boolean => {
      if (state.ended) throw new Error('write after end');
      sendHeaders();
      if (!isHead) chunks.push(toBuffer(chunk, encoding));
      const callback = [encoding, cb].find((a) => typeof a === 'function') as
        (() => void) | undefined;
      if (callback !== undefined) void Promise.resolve().then(() => callback());
      return true;
    },
    end: (chunk?: unknown, encoding?: unknown, cb?: unknown): typeof res => {
      const callback = [chunk, encoding, cb].find((a) => typeof a === 'function') as
        (() => void) | undefined;
      if (state.ended || state.destroyed) return res;
      if (chunk !== undefined && chunk !== null && typeof chunk !== 'function' && !isHead)
        chunks.push(toBuffer(chunk, typeof encoding === 'function' ? undefined : encoding));
      sendHeaders();
      state.ended = true;
      if (!settled) {
        settled = true;
        const answerHeaders: Record<string, string> = {};
        for (const [k, v] of headers)
          answerHeaders[k] = Array.isArray(v.value) ? v.value.join(', ') : String(v.value);
        // One chunk (a whole body written at once) is handed on as it is, not copied.
        const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
        hooks.onEnd({
          status: res.statusCode,
          headers: answerHeaders,
          body: new Uint8Array(body.buffer, body.byteOffset, body.byteLength),
        });
      }
      if (callback !== undefined) void Promise.resolve().then(() => callback());
      emitLater('finish', 'close');
      return res;
    },
    destroy: (): typeof res => {
      if (state.destroyed) return res;
      state.destroyed = true;
      if (!settled) {
        settled = true;
        hooks.onDestroy();
      }
      emitLater('close');
      return res;
    },
    setTimeout: (): typeof res => res,
    cork: (): void => undefined,
    uncork: (): void => undefined,
    addTrailers: (): void => undefined,
    writeContinue: (): void => undefined,
  };
  for (const key of Object.keys(own))
    Object.defineProperty(res, key, { value: own[key], writable: true, configurable: true });
  const flag = (get: () => boolean): PropertyDescriptor => ({ get, configurable: true });
  Object.defineProperties(res, {
    headersSent: flag(() => state.headersSent),
    finished: flag(() => state.ended),
    writableEnded: flag(() => state.ended),
    writableFinished: flag(() => state.ended),
    destroyed: flag(() => state.destroyed),
  });
  const clientGone = (): void => {
    if (state.ended || state.destroyed) return;
    state.destroyed = true;
    settled = true;
    req.aborted = true;
    void Promise.resolve().then(() => {
      req.emit('aborted');
      req.emit('close');
      res.emit('close');
    });
  };
  return { res, clientGone };
}
