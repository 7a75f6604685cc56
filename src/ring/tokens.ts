/**
 * Ring tokens: random generation without collisions, the tokens file an instance keeps to
 * come back with the same tokens after a restart (Cortex's JSON format `{"tokens":[...]}`),
 * and how much of the ring each token owns.
 */
import {
  mkdirAllDurable,
  writeFileDurable,
  type FileSystem,
  type RandomStream,
} from '../runtime/index.js';

const RING_SIZE = 2 ** 32;

/**
 * `count` new random uint32 tokens, none of them in `taken` and no duplicates, sorted.
 * Draws come from `stream` only, so a seeded stream gives the same tokens every run.
 */
export function generateTokens(
  count: number,
  taken: Iterable<number>,
  stream: RandomStream,
): number[] {
  if (count <= 0) return [];
  const used = new Set(taken);
  if (used.size + count > RING_SIZE) throw new RangeError('not enough free tokens in the ring');
  const out: number[] = [];
  while (out.length < count) {
    const candidate = stream.uint32();
    if (used.has(candidate)) continue;
    used.add(candidate);
    out.push(candidate);
  }
  return out.sort((a, b) => a - b);
}

export class TokensFileError extends Error {
  override name = 'TokensFileError';
}

/** Parses a tokens file; throws TokensFileError naming the problem. */
export function parseTokensFile(bytes: Uint8Array, path: string): number[] {
  let raw: unknown;
  try {
    raw = JSON.parse(new TextDecoder().decode(bytes));
  } catch (err) {
    throw new TokensFileError(`tokens file ${path}: invalid JSON: ${(err as Error).message}`);
  }
  const tokens =
    typeof raw === 'object' && raw !== null
      ? (raw as Record<string, unknown>)['tokens']
      : undefined;
  if (
    !Array.isArray(tokens) ||
    !tokens.every((t) => typeof t === 'number' && Number.isInteger(t) && t >= 0 && t <= 0xffffffff)
  ) {
    throw new TokensFileError(`tokens file ${path}: "tokens" must be an array of uint32`);
  }
  return [...new Set(tokens as number[])].sort((a, b) => a - b);
}

export function encodeTokensFile(tokens: readonly number[]): Uint8Array {
  return new TextEncoder().encode(JSON.stringify({ tokens: [...tokens] }));
}

/** Tokens from `path`, or undefined when the file does not exist. */
export async function loadTokensFile(fs: FileSystem, path: string): Promise<number[] | undefined> {
  if (!(await fs.exists(path))) return undefined;
  return parseTokensFile(await fs.readFile(path), path);
}

/**
 * Writes the tokens file durably (temporary file, fsync, rename, directory sync), creating
 * its directory durably too: tokens lost in a power loss would make the instance come back
 * with new ones and move series between ingesters.
 */
export async function storeTokensFile(
  fs: FileSystem,
  path: string,
  tokens: readonly number[],
): Promise<void> {
  const slash = path.lastIndexOf('/');
  const dir = slash < 0 ? '.' : slash === 0 ? '/' : path.slice(0, slash);
  const name = path.slice(slash + 1);
  await mkdirAllDurable(fs, dir);
  await writeFileDurable(fs, dir, name, encodeTokensFile(tokens));
}

/** A token and the instance that owns it. */
export interface TokenOwner {
  token: number;
  instanceId: string;
}

/**
 * Fraction of the ring (0..1) each instance owns. A key hashes to the first token strictly
 * greater than it (wrapping), so a token owns the range from the previous token (inclusive)
 * up to itself (exclusive); the first token also owns the wrap-around range.
 */
export function tokenOwnership(table: readonly TokenOwner[]): Map<string, number> {
  const owned = new Map<string, number>();
  const n = table.length;
  if (n === 0) return owned;
  for (let i = 0; i < n; i++) {
    const cur = table[i];
    if (cur === undefined) continue;
    const prev = table[(i - 1 + n) % n];
    const span = n === 1 ? RING_SIZE : (cur.token - (prev?.token ?? 0) + RING_SIZE) % RING_SIZE;
    owned.set(cur.instanceId, (owned.get(cur.instanceId) ?? 0) + span / RING_SIZE);
  }
  return owned;
}
