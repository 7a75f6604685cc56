import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BadDataError, UnauthorizedError } from './errors.js';
import { MAX_TENANT_ID_LENGTH, NO_AUTH_TENANT, resolveTenant, tenantIdProblem } from './tenant.js';

const VALID_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!-_.*'()";

describe('tenantIdProblem', () => {
  it('accepts every supported character and the maximum length', () => {
    expect(tenantIdProblem('team-a')).toBeUndefined();
    expect(tenantIdProblem(VALID_CHARS)).toBeUndefined();
    expect(tenantIdProblem('a'.repeat(MAX_TENANT_ID_LENGTH))).toBeUndefined();
    expect(tenantIdProblem('...')).toBeUndefined();
  });

  it('names the unsupported character', () => {
    expect(tenantIdProblem('team/a')).toBe("tenant ID 'team/a' contains unsupported character '/'");
    expect(tenantIdProblem('a b')).toBe("tenant ID 'a b' contains unsupported character ' '");
    expect(tenantIdProblem('zürich')).toBe("tenant ID 'zürich' contains unsupported character 'ü'");
    expect(tenantIdProblem('a|b')).toMatch(/unsupported character '\|'.*multiple tenant IDs/);
  });

  it('rejects IDs longer than 150 characters, naming the length', () => {
    expect(tenantIdProblem('a'.repeat(151))).toBe(
      'tenant ID is too long: max 150 characters, got 151',
    );
  });

  it("rejects Cortex's global markers directory name", () => {
    expect(tenantIdProblem('__markers__')).toBe("tenant ID '__markers__' is reserved");
    expect(tenantIdProblem('__markers')).toBeUndefined();
  });

  it("rejects the reserved '.' and '..'", () => {
    expect(tenantIdProblem('.')).toBe("tenant ID is '.' or '..': got '.'");
    expect(tenantIdProblem('..')).toBe("tenant ID is '.' or '..': got '..'");
  });

  it('accepts any ID of supported characters within the length that is not reserved', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(...VALID_CHARS), minLength: 1, maxLength: 150 }),
        (id) => {
          fc.pre(id !== '.' && id !== '..');
          expect(tenantIdProblem(id)).toBeUndefined();
        },
      ),
    );
  });

  it('rejects any ID containing an unsupported character, naming it', () => {
    const bad = fc.string({ minLength: 1, maxLength: 1 }).filter((c) => !VALID_CHARS.includes(c));
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(...VALID_CHARS), maxLength: 20 }),
        bad,
        (prefix, c) => {
          expect(tenantIdProblem(`${prefix}${c}`)).toContain(`unsupported character '${c}'`);
        },
      ),
    );
  });
});

describe('resolveTenant', () => {
  it('uses the header when auth is enabled', () => {
    expect(resolveTenant('team-a', true)).toBe('team-a');
  });

  it('answers 401 when the header is missing or empty', () => {
    for (const v of [undefined, '']) {
      const err = captureError(() => resolveTenant(v, true));
      expect(err).toBeInstanceOf(UnauthorizedError);
      expect((err as UnauthorizedError).status).toBe(401);
      expect((err as Error).message).toContain('X-Scope-OrgID');
    }
  });

  it('answers 400 for invalid IDs', () => {
    const err = captureError(() => resolveTenant('..', true));
    expect(err).toBeInstanceOf(BadDataError);
    expect((err as BadDataError).status).toBe(400);
  });

  it('acts as tenant fake whatever the header says when auth is disabled', () => {
    expect(resolveTenant(undefined, false)).toBe(NO_AUTH_TENANT);
    expect(resolveTenant('team-a', false)).toBe('fake');
    expect(resolveTenant('bad/id', false)).toBe('fake');
  });
});

function captureError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected an error');
}
