/**
 * Bulk decoding of XOR chunks: every sample of a chunk inside a time window written
 * straight into typed arrays.
 *
 * Queries read whole series, and the sample-at-a-time XorIterator behind the engines'
 * iterator protocol costs several calls and field writes per sample. The bulk path runs
 * xor_decode.wat, a WebAssembly decoder: its 64-bit integers read the bit stream a word at a
 * time, where JavaScript needs two 32-bit halves and float arithmetic for every field (it
 * decodes about twice as fast as the best JavaScript version did; docs/benchmarks.md). It
 * takes the common shape of a chunk (timestamps and deltas within safe integers, deltas of
 * deltas of at most 20 bits, well-formed bits); anything else — a 64-bit delta of deltas, a
 * truncated or corrupt chunk — makes it answer -1, and the chunk is decoded with XorIterator,
 * which handles every case exactly and names the error. Values are copied as their 64 bits,
 * so NaN payloads (stale markers) survive bit for bit.
 */
import { HI_WORD, XorIterator } from './xor.js';
import { XOR_DECODE_WASM_BASE64 } from './xor_decode_wasm.js';

/** What this module uses of the WebAssembly API (its types are not in the ES library). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { readonly exports: object };
}
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
const WASM = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/**
 * The compiled decoder, shared by every instance (a module is immutable; each decoder has
 * its own instance and memory). WebAssembly memory is little-endian, so its samples can be
 * copied into Float64Arrays as they are only on a little-endian host (HI_WORD 1); elsewhere
 * every chunk takes the general decoder.
 */
const XOR_DECODE: object | undefined =
  HI_WORD === 1 ? new WASM.Module(Buffer.from(XOR_DECODE_WASM_BASE64, 'base64')) : undefined;

/** Zero bytes after the copied chunk: the decoder loads 8 bytes at a time past its reads. */
const PAD = 32;
const PAGE_BYTES = 65_536;
const LO_WORD = 1 - HI_WORD;

interface XorDecodeExports {
  readonly memory: WasmMemory;
  decode(len: number, tsOff: number, vOff: number, mint: number, maxt: number): number;
}

/** Sample arrays a decoder writes into: `words` aliases `fs`'s buffer as 32-bit words. */
export interface SampleColumns {
  readonly ts: Float64Array;
  readonly fs: Float64Array;
  readonly words: Uint32Array;
}

/** Columns for `capacity` samples. */
export function sampleColumns(capacity: number): SampleColumns {
  const fs = new Float64Array(capacity);
  return { ts: new Float64Array(capacity), fs, words: new Uint32Array(fs.buffer) };
}

/** The number of samples an XOR chunk's header announces (0 when it has no header). */
export function xorSampleCount(data: Uint8Array): number {
  return data.length < 2 ? 0 : ((data[0] as number) << 8) | (data[1] as number);
}

/**
 * Decodes XOR chunks in bulk, reusing one WebAssembly instance (and its memory) across
 * chunks: one decoder per walk over many chunks, as XorIterator is reset per chunk.
 */
export class XorBulkDecoder {
  /** Chunks handed to the general decoder (the fast path declined them). */
  generalDecodes = 0;
  private wasm: XorDecodeExports | undefined;
  private bytes = new Uint8Array(0);
  private f64 = new Float64Array(0);

  /**
   * Writes the chunk's samples with mint ≤ t ≤ maxt into `out` from index `at` (the caller
   * sized it by the header's count) and returns the index after the last one written.
   * Throws the general decoder's error for a chunk it cannot read.
   */
  decodeInto(data: Uint8Array, mint: number, maxt: number, out: SampleColumns, at: number): number {
    return this.decodeAllInto([data], mint, maxt, out, at);
  }

  /**
   * decodeInto for consecutive chunks (a series' lane, in time order): their samples are
   * gathered in the decoder's memory and copied out once, not once per chunk (the copies'
   * fixed cost was as large as the decoding of a short chunk).
   */
  decodeAllInto(
    chunks: readonly Uint8Array[],
    mint: number,
    maxt: number,
    out: SampleColumns,
    at: number,
  ): number {
    // No chunk in the window (a lane's empty read): nothing to instantiate or copy.
    if (chunks.length === 0) return at;
    if (XOR_DECODE === undefined) {
      let n = at;
      for (const data of chunks) n = this.general(data, mint, maxt, out, n);
      return n;
    }
    let inBytes = 0;
    let total = 0;
    for (const data of chunks) {
      if (data.length > inBytes) inBytes = data.length;
      total += xorSampleCount(data);
    }
    // Each chunk at 0 in turn, then room for all their timestamps and values (8-byte
    // aligned), as decode expects.
    const tsOff = (inBytes + PAD + 7) & ~7;
    const vOff = tsOff + 8 * total;
    const wasm = this.instance(vOff + 8 * total);
    let n = at;
    let held = 0; // samples decoded into the instance's memory, not yet copied out
    for (const data of chunks) {
      const len = data.length;
      let got = -1;
      if (len >= 2) {
        this.bytes.set(data);
        this.bytes.fill(0, len, len + PAD);
        got = wasm.decode(len, tsOff + 8 * held, vOff + 8 * held, mint, maxt);
      }
      if (got >= 0) {
        held += got;
        continue;
      }
      n = this.copyOut(tsOff, vOff, held, out, n);
      held = 0;
      n = this.general(data, mint, maxt, out, n);
    }
    return this.copyOut(tsOff, vOff, held, out, n);
  }

  /** Copies `count` decoded samples from the instance's memory into `out` at `at`. */
  private copyOut(
    tsOff: number,
    vOff: number,
    count: number,
    out: SampleColumns,
    at: number,
  ): number {
    if (count === 0) return at;
    out.ts.set(this.f64.subarray(tsOff / 8, tsOff / 8 + count), at);
    out.fs.set(this.f64.subarray(vOff / 8, vOff / 8 + count), at);
    return at + count;
  }

  private general(
    data: Uint8Array,
    mint: number,
    maxt: number,
    out: SampleColumns,
    at: number,
  ): number {
    this.generalDecodes++;
    return decodeExactly(data, mint, maxt, out, at);
  }

  /** The instance, its memory at least `bytes` long (views renewed when it grows). */
  private instance(bytes: number): XorDecodeExports {
    let wasm = this.wasm;
    if (wasm === undefined) {
      wasm = this.wasm = new WASM.Instance(XOR_DECODE as object).exports as XorDecodeExports;
    } else if (bytes <= this.bytes.length) {
      return wasm;
    }
    const have = wasm.memory.buffer.byteLength;
    if (bytes > have) wasm.memory.grow(Math.ceil((bytes - have) / PAGE_BYTES));
    this.bytes = new Uint8Array(wasm.memory.buffer);
    this.f64 = new Float64Array(wasm.memory.buffer);
    return wasm;
  }
}

/** The general decoder's reading of one chunk (every edge case, and the chunk's error). */
function decodeExactly(
  data: Uint8Array,
  mint: number,
  maxt: number,
  out: SampleColumns,
  at: number,
): number {
  const it = new XorIterator(data);
  let n = at;
  while (it.next() !== 0) {
    const t = it.atT();
    if (t > maxt) break;
    if (t < mint) continue;
    out.ts[n] = t;
    out.words[2 * n + HI_WORD] = it.atHi();
    out.words[2 * n + LO_WORD] = it.atLo();
    n++;
  }
  const err = it.err();
  if (err !== null) throw err;
  return n;
}
