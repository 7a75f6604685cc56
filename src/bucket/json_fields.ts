/**
 * Reading and writing the small JSON documents of a blocks bucket (marks, sync status, the
 * bucket index body) the way Go's encoding/json does. Reading is as lenient as Go where Go
 * is lenient (missing fields are zero, unknown fields are ignored) and strict where Go fails
 * (a field of the wrong type); every failure names the object and the field. Writing goes
 * through `goMarshal`, which escapes strings as Go does and keeps the key order of the object
 * it is given, so each serialiser builds its object in the Go struct's field order.
 */
import { canonicalUlid, goMarshalIndent } from '../tsdb/index.js';

/** A bucket document that cannot be understood; `file` is the object, `field` the bad field. */
export class BucketDocumentError extends Error {
  override readonly name = 'BucketDocumentError';
  /** The message without the file name. */
  readonly detail: string;
  constructor(
    readonly file: string,
    readonly field: string | undefined,
    what: string,
  ) {
    const detail = field === undefined ? what : `field ${field}: ${what}`;
    super(`${file}: ${detail}`);
    this.detail = detail;
  }
}

/** `json.Marshal(value)` of a value built from plain objects, arrays, strings and numbers. */
export function goMarshal(value: unknown): string {
  return goMarshalIndent(value, '');
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Parses `data` as a JSON object; anything else is a BucketDocumentError naming `file`. */
export function parseJsonObject(data: Uint8Array | string, file: string): FieldReader {
  let text: string;
  try {
    text = typeof data === 'string' ? data : utf8.decode(data);
  } catch {
    throw new BucketDocumentError(file, undefined, 'not valid UTF-8');
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new BucketDocumentError(file, undefined, `not valid JSON: ${(err as Error).message}`);
  }
  return new FieldReader(file, '', objectOf(raw, file, '(top level)'));
}

type Json = Record<string, unknown>;

function show(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function objectOf(value: unknown, file: string, field: string): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new BucketDocumentError(file, field, `must be an object, got ${show(value)}`);
  }
  return value as Json;
}

/** Typed access to the fields of one JSON object; errors carry the dotted field path. */
export class FieldReader {
  constructor(
    readonly file: string,
    private readonly path: string,
    private readonly obj: Json,
  ) {}

  private name(key: string): string {
    return this.path === '' ? key : `${this.path}.${key}`;
  }

  fail(key: string, what: string): never {
    throw new BucketDocumentError(this.file, this.name(key), what);
  }

  private value(key: string): unknown {
    // Own properties only: a document with `__proto__` must not reach Object.prototype.
    return Object.hasOwn(this.obj, key) ? this.obj[key] : undefined;
  }

  /** An integer field; missing or null reads as 0 (Go's zero value). */
  int(key: string, opts: { min?: number } = {}): number {
    const v = this.value(key);
    if (v === undefined || v === null) return 0;
    if (typeof v !== 'number' || !Number.isSafeInteger(v)) {
      this.fail(key, `must be an integer, got ${show(v)}`);
    }
    if (opts.min !== undefined && v < opts.min) {
      this.fail(key, `must be at least ${opts.min}, got ${v}`);
    }
    return v;
  }

  /** A string field; missing or null reads as ''. */
  str(key: string): string {
    const v = this.value(key);
    if (v === undefined || v === null) return '';
    if (typeof v !== 'string') this.fail(key, `must be a string, got ${show(v)}`);
    return v;
  }

  /** A ULID field in canonical (upper case) form; it must be present, as Go's ULID decoder requires. */
  ulid(key: string): string {
    const v = this.value(key);
    if (typeof v !== 'string') this.fail(key, `must be a ULID string, got ${show(v)}`);
    try {
      return canonicalUlid(v);
    } catch (err) {
      return this.fail(key, (err as Error).message);
    }
  }

  /** An integer field that must equal `want` (document versions). */
  version(key: string, want: number): number {
    const v = this.int(key);
    if (v !== want) this.fail(key, `unsupported version ${v}, want ${want}`);
    return v;
  }

  /** An array of objects; missing or null reads as []. */
  objects(key: string): FieldReader[] {
    const v = this.value(key);
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) this.fail(key, `must be an array, got ${show(v)}`);
    return v.map((item: unknown, i) => {
      const field = `${this.name(key)}[${i}]`;
      return new FieldReader(this.file, field, objectOf(item, this.file, field));
    });
  }
}
