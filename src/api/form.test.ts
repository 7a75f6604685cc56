import { Readable } from 'node:stream';
import type { Request } from 'express';
import { describe, expect, it } from 'vitest';
import { MAX_FORM_BYTES, parseForm } from './form.js';

function request(
  method: string,
  url: string,
  body: string | Buffer = '',
  contentType?: string,
): Request {
  const stream = Readable.from(
    body === '' ? [] : [typeof body === 'string' ? Buffer.from(body) : body],
  );
  return Object.assign(stream, {
    method,
    originalUrl: url,
    get: (name: string) => (name.toLowerCase() === 'content-type' ? contentType : undefined),
  }) as unknown as Request;
}

const FORM = 'application/x-www-form-urlencoded';

describe('parseForm (Go ParseForm)', () => {
  it('decodes the query string like url.ParseQuery', async () => {
    const f = await parseForm(request('GET', '/x?a=1&a=2&b=x+y%2Bz&c&=v&d=%E2%82%AC'));
    expect(f.getAll('a')).toEqual(['1', '2']);
    expect(f.get('a')).toBe('1');
    expect(f.get('b')).toBe('x y+z');
    expect(f.getAll('c')).toEqual(['']);
    expect(f.get('')).toBe('v');
    expect(f.get('d')).toBe('€');
    expect(f.get('missing')).toBe('');
    expect(f.error).toBeUndefined();
  });

  it('puts url-encoded body values before query values', async () => {
    const f = await parseForm(
      request(
        'POST',
        '/x?match[]=q&time=1',
        'match%5B%5D=b1&match[]=b2&query=up',
        `${FORM}; charset=utf-8`,
      ),
    );
    expect(f.getAll('match[]')).toEqual(['b1', 'b2', 'q']);
    expect(f.get('time')).toBe('1');
    expect(f.get('query')).toBe('up');
  });

  it('ignores bodies of other content types and of GET requests', async () => {
    expect(
      (await parseForm(request('POST', '/x?a=1', 'a=2', 'application/json'))).getAll('a'),
    ).toEqual(['1']);
    expect((await parseForm(request('POST', '/x', 'a=2'))).get('a')).toBe('');
    expect((await parseForm(request('GET', '/x', 'a=2', FORM))).get('a')).toBe('');
  });

  it('drops pairs with semicolons or bad escapes and keeps the first error', async () => {
    const f = await parseForm(request('GET', '/x?a=1;b=2&c=%zz&d=%4&e=ok'));
    expect(f.get('a')).toBe('');
    expect(f.get('c')).toBe('');
    expect(f.get('e')).toBe('ok');
    expect(f.error).toBe('invalid semicolon separator in query');
    expect((await parseForm(request('GET', '/x?c=%zz'))).error).toBe('invalid URL escape "%zz"');
    expect((await parseForm(request('GET', '/x?c=%4'))).error).toBe('invalid URL escape "%4"');
  });

  it('refuses bodies past 10 MiB like Go, keeping the query string', async () => {
    const big = Buffer.alloc(MAX_FORM_BYTES + 1, 'a');
    const f = await parseForm(request('POST', '/x?q=1', big, FORM));
    expect(f.error).toBe('http: POST too large');
    expect(f.get('q')).toBe('1');
  });
});
