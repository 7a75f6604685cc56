/**
 * Request parameters the way Go's `http.Request.ParseForm` merges them, which is what
 * Prometheus reads with `r.FormValue` / `r.Form[...]`: the values of an
 * `application/x-www-form-urlencoded` body (POST) come first, then those of the URL query
 * string. Decoding follows Go's `url.ParseQuery`: `&`-separated pairs, `+` is a space,
 * `%XX` escapes; a pair with `;` or a bad escape is dropped and the first such error is kept
 * (the series endpoint reports it, the others ignore it, as in Prometheus).
 */
import type { Request } from 'express';

/** Go's maxFormSize for url-encoded bodies (10 MiB). */
export const MAX_FORM_BYTES = 10 << 20;

export class Form {
  constructor(
    private readonly values: ReadonlyMap<string, readonly string[]>,
    /** The first error met while parsing, Go's `ParseForm` error text. */
    readonly error: string | undefined,
  ) {}

  /** Go's `FormValue`: the first value, or '' when absent. */
  get(name: string): string {
    return this.values.get(name)?.[0] ?? '';
  }

  /** Go's `r.Form[name]`: every value, body values first. */
  getAll(name: string): readonly string[] {
    return this.values.get(name) ?? [];
  }
}

interface Parsed {
  readonly values: Map<string, string[]>;
  error: string | undefined;
}

/** Go's `url.QueryUnescape` on a latin1 "byte string"; undefined on a bad escape. */
function unescape(s: string): { value: string } | { bad: string } {
  if (!s.includes('%') && !s.includes('+')) return { value: s };
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i] as string;
    if (c === '+') {
      out += ' ';
    } else if (c === '%') {
      const hex = s.slice(i + 1, i + 3);
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) {
        return { bad: s.slice(i, i + 3) };
      }
      out += String.fromCharCode(parseInt(hex, 16));
      i += 2;
    } else {
      out += c;
    }
  }
  return { value: out };
}

/** Latin1 "bytes" (one char per byte) decoded as UTF-8 text. */
function bytesToText(s: string): string {
  // eslint-disable-next-line no-control-regex
  return /^[\x00-\x7f]*$/.test(s) ? s : Buffer.from(s, 'latin1').toString('utf8');
}

/** Go's `url.ParseQuery`, adding into `into`; `query` is latin1-encoded bytes. */
function parseQueryInto(query: string, into: Parsed): void {
  let rest = query;
  while (rest !== '') {
    const amp = rest.indexOf('&');
    const pair = amp < 0 ? rest : rest.slice(0, amp);
    rest = amp < 0 ? '' : rest.slice(amp + 1);
    if (pair.includes(';')) {
      into.error ??= 'invalid semicolon separator in query';
      continue;
    }
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const rawKey = eq < 0 ? pair : pair.slice(0, eq);
    const rawValue = eq < 0 ? '' : pair.slice(eq + 1);
    const key = unescape(rawKey);
    if ('bad' in key) {
      into.error ??= `invalid URL escape "${key.bad}"`;
      continue;
    }
    const value = unescape(rawValue);
    if ('bad' in value) {
      into.error ??= `invalid URL escape "${value.bad}"`;
      continue;
    }
    const k = bytesToText(key.value);
    let list = into.values.get(k);
    if (list === undefined) {
      list = [];
      into.values.set(k, list);
    }
    list.push(bytesToText(value.value));
  }
}

function isFormContentType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const mediaType = (contentType.split(';')[0] ?? '').trim().toLowerCase();
  return mediaType === 'application/x-www-form-urlencoded';
}

/**
 * Reads the body as latin1 "bytes", failing like Go past MAX_FORM_BYTES. The rest of a body
 * that is too large is still drained (not stored): leaving the loop early would destroy the
 * request stream, and with it the connection the error response has to go out on.
 */
async function readBody(req: Request): Promise<{ body: string } | { error: string }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer | string>) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : chunk;
    size += buf.length;
    if (size <= MAX_FORM_BYTES) chunks.push(buf);
  }
  if (size > MAX_FORM_BYTES) return { error: 'http: POST too large' };
  return { body: Buffer.concat(chunks).toString('latin1') };
}

/** The raw query string of the request URL (after `?`), as latin1 bytes. */
function rawQuery(req: Request): string {
  const url = req.originalUrl;
  const q = url.indexOf('?');
  return q < 0 ? '' : url.slice(q + 1);
}

/**
 * Parses the request's parameters once: the url-encoded body for POST (other content types
 * contribute nothing, as in Go), then the URL query string.
 */
export async function parseForm(req: Request): Promise<Form> {
  const form = req.method === 'POST' && isFormContentType(req.get('content-type'));
  const body = form ? await readBody(req) : { body: '' };
  return formFromParts(form ? body : undefined, rawQuery(req));
}

/**
 * The same parameters from a request already read: `body` is the url-encoded POST body as
 * latin1 "bytes" (or its read error), undefined when the request has no form body;
 * `query` the raw URL query string. For a frontend that must forward the body it parsed.
 */
export function formFromParts(
  body: { body: string } | { error: string } | undefined,
  query: string,
): Form {
  const parsed: Parsed = { values: new Map(), error: undefined };
  if (body !== undefined) {
    if ('error' in body) parsed.error = body.error;
    else parseQueryInto(body.body, parsed);
  }
  const fromBody = parsed.error;
  parseQueryInto(query, parsed);
  // Go keeps the body's error when both fail.
  if (fromBody !== undefined) parsed.error = fromBody;
  return new Form(parsed.values, parsed.error);
}

/** Whether a request with this method and Content-Type carries its parameters in the body. */
export function hasFormBody(method: string, contentType: string | undefined): boolean {
  return method === 'POST' && isFormContentType(contentType);
}
