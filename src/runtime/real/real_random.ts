import { randomBytes } from 'node:crypto';
import { createSeededRandom } from '../prng.js';
import type { Random } from '../random.js';

/**
 * Randomness for a real process: the same seeded streams the simulator uses, seeded once from
 * the operating system (128 bits), so each process draws differently.
 */
export function createRealRandom(): Random {
  return createSeededRandom(randomBytes(16).toString('hex'));
}
