import { describe, expect, it } from 'vitest';
import {
  encodeDelete,
  encodeGetMulti,
  encodeRequest,
  encodeResponse,
  encodeSet,
  expirationFor,
  Opcode,
  ProtocolError,
  ResponseParser,
  Status,
} from './memcached_protocol.js';

const enc = new TextEncoder();
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const unhex = (s: string): Uint8Array => new Uint8Array(Buffer.from(s.replace(/\s+/g, ''), 'hex'));

// Frames from the examples of the memcached binary protocol specification
// (https://github.com/memcached/memcached/wiki/BinaryProtocolRevamped).
const GET_HELLO = '80000005 00000000 00000005 00000000 0000000000000000 48656c6c6f';
const SET_HELLO_WORLD =
  '80010005 08000000 00000012 00000000 0000000000000000 deadbeef 00000e10 48656c6c6f 576f726c64';
const GETK_HIT_RESPONSE =
  '810c0005 04000000 0000000e 00000000 0000000000000001 deadbeef 48656c6c6f 576f726c64';

describe('memcached binary protocol: requests', () => {
  it('encodes the specification example frames byte for byte', () => {
    expect(hex(encodeRequest({ opcode: Opcode.Get, opaque: 0, key: enc.encode('Hello') }))).toBe(
      hex(unhex(GET_HELLO)),
    );
    const set = encodeSet(enc.encode('Hello'), enc.encode('World'), {
      flags: 0xdeadbeef,
      expiration: 0xe10,
      opaque: 0,
    });
    expect(hex(set)).toBe(hex(unhex(SET_HELLO_WORLD)));
    expect(hex(encodeDelete(enc.encode('Hello'), 9))).toBe(
      hex(unhex('80040005 00000000 00000005 00000009 0000000000000000 48656c6c6f')),
    );
  });

  it('pipelines a GetKQ per key with its index as opaque, ended by a Noop', () => {
    const frames = encodeGetMulti([enc.encode('a'), enc.encode('bc')]);
    expect(hex(frames)).toBe(
      hex(
        unhex(
          '800d0001 00000000 00000001 00000000 0000000000000000 61' +
            '800d0002 00000000 00000002 00000001 0000000000000000 6263' +
            '800a0000 00000000 00000000 00000002 0000000000000000',
        ),
      ),
    );
  });

  it('turns a TTL into relative seconds, absolute time beyond 30 days, 0 for none', () => {
    expect(expirationFor(0, 5_000_000)).toBe(0);
    expect(expirationFor(-1, 5_000_000)).toBe(0);
    expect(expirationFor(1, 5_000_000)).toBe(1);
    expect(expirationFor(60_000, 5_000_000)).toBe(60);
    expect(expirationFor(30 * 86_400_000, 5_000_000)).toBe(30 * 86_400);
    const nowMs = 1_700_000_000_000;
    expect(expirationFor(31 * 86_400_000, nowMs)).toBe(nowMs / 1000 + 31 * 86_400);
  });
});

describe('memcached binary protocol: response parser', () => {
  it('parses the specification GetK response', () => {
    const [frame, ...rest] = new ResponseParser(1 << 20).push(unhex(GETK_HIT_RESPONSE));
    expect(rest).toEqual([]);
    expect(frame).toMatchObject({ opcode: Opcode.GetK, status: 0, opaque: 0, cas: 1n });
    expect(hex(frame!.extras)).toBe('deadbeef');
    expect(new TextDecoder().decode(frame!.key)).toBe('Hello');
    expect(new TextDecoder().decode(frame!.value)).toBe('World');
  });

  it('reassembles frames cut at every possible point', () => {
    const stream = new Uint8Array([
      ...unhex(GETK_HIT_RESPONSE),
      ...encodeResponse({ opcode: Opcode.Delete, status: Status.KeyNotFound, opaque: 7 }),
      ...encodeResponse({ opcode: Opcode.Noop, opaque: 8 }),
    ]);
    for (let cut1 = 0; cut1 <= stream.length; cut1++) {
      for (const cut2 of [cut1, Math.min(stream.length, cut1 + 5), stream.length]) {
        const p = new ResponseParser(1 << 20);
        const frames = [
          ...p.push(stream.slice(0, cut1)),
          ...p.push(stream.slice(cut1, cut2)),
          ...p.push(stream.slice(cut2)),
        ];
        expect(frames.map((f) => [f.opcode, f.status, f.opaque])).toEqual([
          [Opcode.GetK, 0, 0],
          [Opcode.Delete, Status.KeyNotFound, 7],
          [Opcode.Noop, 0, 8],
        ]);
        expect(p.pendingBytes).toBe(0);
      }
    }
  });

  it('keeps a truncated frame pending instead of inventing one', () => {
    const p = new ResponseParser(1 << 20);
    expect(p.push(unhex(GETK_HIT_RESPONSE).slice(0, 30))).toEqual([]);
    expect(p.pendingBytes).toBe(30);
  });

  it('rejects a bad magic, an oversized body and inconsistent lengths', () => {
    const bad = unhex(GETK_HIT_RESPONSE);
    bad[0] = 0x80;
    expect(() => new ResponseParser(1 << 20).push(bad)).toThrow(ProtocolError);
    expect(() => new ResponseParser(10).push(unhex(GETK_HIT_RESPONSE))).toThrow(/exceeds 10/);
    const inconsistent = unhex(GETK_HIT_RESPONSE);
    inconsistent[11] = 3; // body length 3 < key (5) + extras (4)
    expect(() => new ResponseParser(1 << 20).push(inconsistent)).toThrow(/exceed its body/);
  });
});
