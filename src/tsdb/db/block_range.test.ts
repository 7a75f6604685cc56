import { describe, expect, it } from 'vitest';
import { headCompactable } from './index.js';

const R = 7_200_000;

describe('headCompactable', () => {
  it('needs a span of more than 1.5 chunk ranges', () => {
    expect(headCompactable(0, 1.5 * R, R)).toBe(false);
    expect(headCompactable(0, 1.5 * R + 1, R)).toBe(true);
    // Go's chunkRange/2*3 on an odd range.
    expect(headCompactable(0, 3, 3)).toBe(false);
    expect(headCompactable(0, 4, 3)).toBe(true);
  });
});
