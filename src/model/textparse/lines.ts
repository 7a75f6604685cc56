/**
 * Splits input chunks into lines without holding more than one partial line, so a large
 * file streams through in constant memory. Bytes are decoded per line with a strict UTF-8
 * decoder, which lets an encoding error name its line.
 */
import { TextParseError } from './entries.js';

export interface RawLine {
  /** Without the terminating `\n`. */
  readonly text: string;
  /** 1-based. */
  readonly number: number;
  /** False only for a last line that the input ends without a `\n`. */
  readonly terminated: boolean;
}

const NEWLINE = 0x0a;

/** Accumulates chunks and hands back complete lines; `finish` returns the unterminated tail. */
export class LineSplitter {
  private pendingText = '';
  private pendingBytes: Uint8Array[] = [];
  private lineNumber = 0;
  private readonly decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

  /** Lines completed by this chunk. */
  *push(chunk: string | Uint8Array): Generator<RawLine> {
    if (typeof chunk === 'string') {
      if (this.pendingBytes.length > 0) this.pendingText += this.decodePending();
      let start = 0;
      for (let nl = chunk.indexOf('\n'); nl >= 0; nl = chunk.indexOf('\n', start)) {
        const text = this.pendingText + chunk.slice(start, nl);
        this.pendingText = '';
        start = nl + 1;
        yield { text, number: ++this.lineNumber, terminated: true };
      }
      this.pendingText += chunk.slice(start);
      return;
    }
    let start = 0;
    for (let nl = chunk.indexOf(NEWLINE); nl >= 0; nl = chunk.indexOf(NEWLINE, start)) {
      this.pendingBytes.push(chunk.subarray(start, nl));
      start = nl + 1;
      const text = this.pendingText + this.decodePending(this.lineNumber + 1);
      this.pendingText = '';
      yield { text, number: ++this.lineNumber, terminated: true };
    }
    // Copy the tail: the caller may reuse its chunk buffer.
    if (start < chunk.length) this.pendingBytes.push(chunk.slice(start));
  }

  /** The last line when the input does not end with `\n`, else undefined. */
  finish(): RawLine | undefined {
    const text = this.pendingText + this.decodePending(this.lineNumber + 1);
    this.pendingText = '';
    if (text.length === 0) return undefined;
    return { text, number: ++this.lineNumber, terminated: false };
  }

  private decodePending(lineNumber = this.lineNumber + 1): string {
    const parts = this.pendingBytes;
    if (parts.length === 0) return '';
    this.pendingBytes = [];
    let bytes: Uint8Array;
    if (parts.length === 1) {
      bytes = parts[0] as Uint8Array;
    } else {
      let total = 0;
      for (const p of parts) total += p.length;
      bytes = new Uint8Array(total);
      let at = 0;
      for (const p of parts) {
        bytes.set(p, at);
        at += p.length;
      }
    }
    try {
      return this.decoder.decode(bytes);
    } catch {
      throw new TextParseError(lineNumber, 'invalid UTF-8 in line');
    }
  }
}

/** All lines of a synchronous input. */
export function* splitLines(
  input: string | Uint8Array | Iterable<string | Uint8Array>,
): Generator<RawLine> {
  const splitter = new LineSplitter();
  if (typeof input === 'string' || input instanceof Uint8Array) {
    yield* splitter.push(input);
  } else {
    for (const chunk of input) yield* splitter.push(chunk);
  }
  const last = splitter.finish();
  if (last !== undefined) yield last;
}

/** All lines of an asynchronous input (a stream of chunks). */
export async function* splitLinesAsync(
  input: AsyncIterable<string | Uint8Array>,
): AsyncGenerator<RawLine> {
  const splitter = new LineSplitter();
  for await (const chunk of input) yield* splitter.push(chunk);
  const last = splitter.finish();
  if (last !== undefined) yield last;
}
