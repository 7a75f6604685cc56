import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DiskFileSystem } from '../../sim/testing/index.js';
import { createSeededRandom } from '../runtime/index.js';
import {
  encodeTokensFile,
  generateTokens,
  loadTokensFile,
  parseTokensFile,
  storeTokensFile,
  tokenOwnership,
} from './tokens.js';

describe('generateTokens', () => {
  it('returns sorted unique tokens that avoid the taken ones', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 0xffffffff }), { maxLength: 50 }),
        fc.integer({ min: 0, max: 200 }),
        fc.string(),
        (taken, count, seed) => {
          const out = generateTokens(count, taken, createSeededRandom(seed).stream('t'));
          expect(out).toHaveLength(count);
          expect(new Set(out).size).toBe(count);
          expect(out).toEqual([...out].sort((a, b) => a - b));
          const takenSet = new Set(taken);
          expect(out.some((t) => takenSet.has(t))).toBe(false);
          expect(out.every((t) => Number.isInteger(t) && t >= 0 && t <= 0xffffffff)).toBe(true);
        },
      ),
      { numRuns: 50 },
    );
  });

  it('is reproducible from the seed and skips collisions', () => {
    const a = generateTokens(8, [], createSeededRandom('s').stream('x'));
    expect(generateTokens(8, [], createSeededRandom('s').stream('x'))).toEqual(a);
    // With the first draw taken, the same stream must produce a different first token set.
    const first = createSeededRandom('s').stream('x').uint32();
    const b = generateTokens(8, [first], createSeededRandom('s').stream('x'));
    expect(b).not.toContain(first);
    expect(b).toHaveLength(8);
  });
});

describe('tokens file', () => {
  it('uses Cortex format and round-trips through the FileSystem', async () => {
    const fs = new DiskFileSystem();
    await storeTokensFile(fs, '/var/ring/tokens.json', [30, 10, 20]);
    expect(new TextDecoder().decode(await fs.readFile('/var/ring/tokens.json'))).toBe(
      '{"tokens":[30,10,20]}',
    );
    expect(await loadTokensFile(fs, '/var/ring/tokens.json')).toEqual([10, 20, 30]);
    expect(await loadTokensFile(fs, '/var/ring/missing')).toBeUndefined();
    expect(new TextDecoder().decode(encodeTokensFile([1]))).toBe('{"tokens":[1]}');
  });

  it('survives a power loss after the rename is synced', async () => {
    const fs = new DiskFileSystem();
    await storeTokensFile(fs, '/d/tokens', [1, 2]);
    fs.powerLossAfter((op) => op.kind === 'syncDir');
    await storeTokensFile(fs, '/d/tokens', [3, 4]);
    const after = new DiskFileSystem(fs.disk);
    expect(await loadTokensFile(after, '/d/tokens')).toEqual([3, 4]);
  });

  it.each([
    ['nope', 'invalid JSON'],
    ['{}', '"tokens" must be an array of uint32'],
    ['{"tokens":[1.5]}', '"tokens" must be an array of uint32'],
    ['{"tokens":[4294967296]}', '"tokens" must be an array of uint32'],
  ])('rejects %s', (text, message) => {
    expect(() => parseTokensFile(new TextEncoder().encode(text), '/t')).toThrow(
      `tokens file /t: ${message}`,
    );
  });
});

describe('tokenOwnership', () => {
  it('gives each token the range up to it from the previous one', () => {
    const owned = tokenOwnership([
      { token: 2 ** 30, instanceId: 'a' },
      { token: 2 ** 31, instanceId: 'b' },
      { token: 3 * 2 ** 30, instanceId: 'a' },
    ]);
    // a: wrap-around [3*2^30, 2^30) = 1/2, plus [2^31, 3*2^30) = 1/4.
    expect(owned.get('a')).toBe(0.75);
    expect(owned.get('b')).toBe(0.25);
    expect(tokenOwnership([])).toEqual(new Map());
  });
});
