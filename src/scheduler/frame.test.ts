import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RpcError } from '../runtime/index.js';
import { FRAME_CONTENT_TYPE, FrameError, frameBody, parseFrame } from './frame.js';
import { decode, rpc, type ResultRequest } from './protocol.js';

const bytes = (...b: number[]): Uint8Array => new Uint8Array(b);

describe('frames (JSON envelope, byte arrays attached raw)', () => {
  it('carries byte arrays at any depth as raw bytes, not base64 text', () => {
    const body = new TextEncoder().encode('{"status":"success"}'.repeat(100));
    const value = {
      id: 'q-1',
      response: { status: 200, headers: { 'content-type': 'application/json' }, body },
      more: [bytes(1, 2), { deep: bytes() }],
    };
    const framed = frameBody(value);
    expect(framed.contentType).toBe(FRAME_CONTENT_TYPE);
    // Header, envelope, then exactly the attached bytes: nothing grows by a third.
    expect(framed.body.byteLength).toBeLessThan(body.byteLength + 200);
    const back = parseFrame<typeof value>(framed.body);
    expect(back).toEqual(value);
    expect(back.response.body).toBeInstanceOf(Uint8Array);
  });

  it('attaches a Buffer as its bytes (not through Buffer#toJSON)', () => {
    const back = parseFrame<{ b: Uint8Array }>(frameBody({ b: Buffer.from('hi') }).body);
    expect(new TextDecoder().decode(back.b)).toBe('hi');
  });

  it('reads a frame that is a view into a larger buffer', () => {
    const framed = frameBody({ b: bytes(9, 8, 7) }).body;
    const outer = new Uint8Array(framed.byteLength + 10);
    outer.set(framed, 5);
    expect(parseFrame(outer.subarray(5, 5 + framed.byteLength))).toEqual({ b: bytes(9, 8, 7) });
  });

  it('round-trips any JSON value with byte arrays in it (property)', () => {
    const leaf = fc.oneof(fc.jsonValue({ maxDepth: 1 }), fc.uint8Array({ maxLength: 50 }));
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.array(leaf, { maxLength: 4 })), (value) => {
        // JSON's own mapping first (-0 becomes 0, etc.), then the frame must keep it.
        const plain = JSON.parse(
          JSON.stringify(value, (_k, v: unknown) => (v instanceof Uint8Array ? null : v)),
        ) as unknown;
        const back = parseFrame<Record<string, unknown[]>>(frameBody(value).body);
        expect(
          JSON.parse(
            JSON.stringify(back, (_k, v: unknown) => (v instanceof Uint8Array ? null : v)),
          ),
        ).toEqual(plain);
        for (const [k, list] of Object.entries(value)) {
          list.forEach((v, i) => {
            if (v instanceof Uint8Array) expect(back[k]?.[i]).toEqual(v);
          });
        }
      }),
    );
  });

  it('rejects malformed frames with a FrameError naming the problem', () => {
    expect(() => parseFrame(bytes(0, 0))).toThrow(new FrameError('frame of 2 bytes has no header'));
    expect(() => parseFrame(bytes(0, 0, 0, 9, 0x7b, 0x7d))).toThrow(
      'frame envelope of 9 bytes overruns the 6-byte frame',
    );
    const envelope = (json: string): Uint8Array => {
      const e = new TextEncoder().encode(json);
      return new Uint8Array([0, 0, 0, e.byteLength, ...e, 1, 2]);
    };
    expect(() => parseFrame(envelope('{"b":{"$bytes":[1,5]}}'))).toThrow(
      'frame attachment [1, 6) overruns its 2 bytes',
    );
    expect(() => parseFrame(envelope('{"b":{"$bytes":[-1,1]}}'))).toThrow(
      'malformed frame attachment [-1,1]',
    );
    expect(() => parseFrame(envelope('{"b":{"$bytes":"x"}}'))).toThrow(
      'malformed frame attachment "x"',
    );
    expect(() => parseFrame(envelope('{"b":'))).toThrow(SyntaxError);
    // A place holder's key spelt with escapes is still one.
    expect(() => parseFrame(envelope('{"b":{"\\u0024bytes":[1,5]}}'))).toThrow(
      'frame attachment [1, 6) overruns its 2 bytes',
    );
    expect(parseFrame(envelope('{"b":{"\\u0024bytes":[0,2]}}'))).toEqual({ b: bytes(1, 2) });
  });

  it('writes what JSON.stringify writes of everything but byte arrays', () => {
    const value = {
      when: new Date(0),
      gone: undefined,
      f: () => 1,
      list: [undefined, 1, { toJSON: () => ({ inner: bytes(5) }) }],
      // A computed key is an own property named __proto__, as JSON.parse makes one.
      ['__proto__']: { b: bytes(4) },
    };
    const back = parseFrame<Record<string, unknown>>(frameBody(value).body);
    expect(back.when).toBe('1970-01-01T00:00:00.000Z');
    expect('gone' in back).toBe(false);
    expect('f' in back).toBe(false);
    expect(back.list).toEqual([null, 1, { inner: bytes(5) }]);
    // An own `__proto__` key stays a key: the prototype of what comes back is untouched.
    expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(back, '__proto__')?.value).toEqual({ b: bytes(4) });
    // The caller's value is not changed by framing it.
    expect(value.list[2]).not.toHaveProperty('inner');
  });

  it('turns a malformed message into an invalid_argument RpcError saying what it was', () => {
    const good = rpc('frontend.Result', { id: 'a', response: { headers: {}, body: bytes(1) } });
    expect(decode<ResultRequest>(good, 'query result').response.body).toEqual(bytes(1));
    const bad = { body: bytes(0, 0, 0, 50), contentType: FRAME_CONTENT_TYPE };
    expect(() => decode(bad, 'query result')).toThrow(
      new RpcError(
        'invalid_argument',
        'malformed query result: frame envelope of 50 bytes overruns the 4-byte frame',
      ),
    );
    expect(() => decode({ body: bytes(), contentType: 'text/plain' }, 'query result')).toThrow(
      'unexpected content type text/plain',
    );
  });
});
