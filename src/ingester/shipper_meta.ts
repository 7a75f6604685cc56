// `thanos.shipper.json`, the ingester's local record of which of a tenant's blocks are in the
// bucket (`<tsdb dir>/<tenant>/thanos.shipper.json`, Thanos shipper.Meta): read at tenant
// open and by every sync, rewritten after every sync. Written as Thanos writes it (tab
// indented, trailing newline, `null` for an empty list) so a Cortex ingester reading our
// data directory, or we reading its, agree on what was shipped.
import { SHIPPER_META_FILE } from '../bucket/index.js';
import { isNotFound, writeFileDurable, type FileSystem } from '../runtime/index.js';
import { canonicalUlid } from '../tsdb/index.js';

export const SHIPPER_META_VERSION = 1;

/** The file's content: the ULIDs (canonical, upper case) recorded as uploaded. */
export interface ShipperMeta {
  readonly version: number;
  readonly uploaded: readonly string[];
}

/** The shipper file is unreadable; the message says why, with the offending value. */
export class ShipperMetaError extends Error {
  override readonly name = 'ShipperMetaError';
}

/**
 * Reads `<dir>/thanos.shipper.json`. A missing file is `undefined` (the shipper has not run
 * yet); bad JSON, a version other than 1 or an entry that is not a ULID throws
 * ShipperMetaError (Thanos ReadMetaFile), and the caller decides what that means.
 */
export async function readShipperMeta(
  fs: FileSystem,
  dir: string,
): Promise<ShipperMeta | undefined> {
  const path = `${dir}/${SHIPPER_META_FILE}`;
  let bytes: Uint8Array;
  try {
    bytes = await fs.readFile(path);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (err) {
    throw new ShipperMetaError(
      `failed to parse ${path} as JSON: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new ShipperMetaError(`${path}: want a JSON object, got ${JSON.stringify(raw)}`);
  const o = raw as Record<string, unknown>;
  if (o.version !== SHIPPER_META_VERSION)
    throw new ShipperMetaError(
      `${path}: unexpected meta file version ${JSON.stringify(o.version)}`,
    );
  const list = o.uploaded ?? [];
  if (!Array.isArray(list))
    throw new ShipperMetaError(`${path}: uploaded must be a list, got ${JSON.stringify(list)}`);
  const uploaded = list.map((id: unknown) => {
    try {
      if (typeof id !== 'string') throw new Error('not a string');
      return canonicalUlid(id);
    } catch {
      throw new ShipperMetaError(`${path}: uploaded entry ${JSON.stringify(id)} is not a ULID`);
    }
  });
  return { version: SHIPPER_META_VERSION, uploaded };
}

/**
 * Replaces `<dir>/thanos.shipper.json` so that after a crash or power cut the old or the new
 * list is there, whole (temp file, fsync, rename, directory sync).
 */
export async function writeShipperMeta(
  fs: FileSystem,
  dir: string,
  uploaded: readonly string[],
): Promise<void> {
  await writeFileDurable(
    fs,
    dir,
    SHIPPER_META_FILE,
    new TextEncoder().encode(encodeShipperMeta(uploaded)),
  );
}

/** The file's text as Go's json.Encoder with a tab indent writes shipper.Meta. */
export function encodeShipperMeta(uploaded: readonly string[]): string {
  const body = {
    version: SHIPPER_META_VERSION,
    // A Go nil slice (nothing uploaded) encodes as null, not [].
    uploaded: uploaded.length === 0 ? null : uploaded,
  };
  return `${JSON.stringify(body, null, '\t')}\n`;
}
