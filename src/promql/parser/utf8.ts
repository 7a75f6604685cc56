// UTF-8 decoding with Go's rules. Go strings may hold any bytes (a `"\xc5"` escape makes an
// invalid one); JavaScript strings cannot, so an invalid byte b becomes the lone surrogate
// U+DC00+b ("surrogateescape"), which the model's name validation rejects as invalid UTF-8.

const RUNE_ERROR = 0xfffd;

/** Decodes one rune at i like Go's utf8.DecodeRune: invalid input is (U+FFFD, 1). */
export function decodeRune(b: Uint8Array, i: number): [number, number] {
  const c0 = b[i] as number;
  if (c0 < 0x80) return [c0, 1];
  const cont = (k: number): number => {
    const c = b[i + k];
    return c !== undefined && (c & 0xc0) === 0x80 ? c & 0x3f : -1;
  };
  if (c0 >= 0xc2 && c0 <= 0xdf) {
    const c1 = cont(1);
    if (c1 >= 0) return [((c0 & 0x1f) << 6) | c1, 2];
  } else if (c0 >= 0xe0 && c0 <= 0xef) {
    const c1 = cont(1);
    const c2 = cont(2);
    if (c1 >= 0 && c2 >= 0) {
      const r = ((c0 & 0x0f) << 12) | (c1 << 6) | c2;
      if (r >= 0x800 && (r < 0xd800 || r > 0xdfff)) return [r, 3];
    }
  } else if (c0 >= 0xf0 && c0 <= 0xf4) {
    const c1 = cont(1);
    const c2 = cont(2);
    const c3 = cont(3);
    if (c1 >= 0 && c2 >= 0 && c3 >= 0) {
      const r = ((c0 & 0x07) << 18) | (c1 << 12) | (c2 << 6) | c3;
      if (r >= 0x10000 && r <= 0x10ffff) return [r, 4];
    }
  }
  return [RUNE_ERROR, 1];
}

/** Bytes to a JavaScript string; each invalid byte b becomes U+DC00+b. */
export function decodeGoBytes(bytes: readonly number[] | Uint8Array): string {
  const b = bytes instanceof Uint8Array ? bytes : Uint8Array.from(bytes);
  let out = '';
  for (let i = 0; i < b.length;) {
    const [r, w] = decodeRune(b, i);
    if (r === RUNE_ERROR && w === 1 && !(b[i] === 0xef && b[i + 1] === 0xbf && b[i + 2] === 0xbd)) {
      out += String.fromCharCode(0xdc00 + (b[i] as number));
    } else {
      out += String.fromCodePoint(r);
    }
    i += w;
  }
  return out;
}
