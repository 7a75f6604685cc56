import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * Proves the runtime boundary lint rule of DESIGN.md works: the repository's own ESLint config
 * rejects nondeterministic globals and real IO modules in component code and allows them in
 * src/runtime/real/ and sim/kernel/. The probe files do not exist on disk, so type-aware
 * linting is switched off for them (the project service only knows real files); the boundary
 * rules are purely syntactic and come unchanged from eslint.config.js.
 */
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

const FORBIDDEN: Record<string, string> = {
  'Date.now()': 'export const t = Date.now();',
  'new Date()': 'export const d = new Date();',
  'Math.random()': 'export const r = Math.random();',
  'setTimeout(...)': 'setTimeout(() => undefined, 10);',
  'process.nextTick(...)': 'process.nextTick(() => undefined);',
  'crypto.randomUUID()': 'export const id = crypto.randomUUID();',
  "import fs from 'node:fs'": "import fs from 'node:fs';\nexport const f = fs;",
  "import 'node:http'": "import 'node:http';",
  "import 'node:net'": "import 'node:net';",
  "Date['now']()": "export const t = Date['now']();",
  'aliased Date': 'const D = Date;\nexport const t = D.now();',
  'destructured Date.now': 'const { now } = Date;\nexport const t = now();',
  'fetch(...)': "export const p = fetch('http://127.0.0.1/');",
  "import { nextTick } from 'node:process'":
    "import { nextTick } from 'node:process';\nnextTick(() => undefined);",
  "import crypto from 'node:crypto'":
    "import c from 'node:crypto';\nexport const b = c.randomBytes(4);",
  "import('node:timers')": "export const t = import('node:timers');",
  'new WeakRef(...)': 'export const w = new WeakRef({});',
};

const COMPONENT_FILES = [
  'src/ingester/example.ts',
  'src/tsdb/head_append.ts',
  'sim/runtime/example.ts',
];
const EXEMPT_FILES = ['src/runtime/real/x.ts', 'sim/kernel/x.ts', 'src/ingester/example.test.ts'];
const BOUNDARY_RULES = [
  'no-restricted-syntax',
  'no-restricted-properties',
  'no-restricted-globals',
  'no-restricted-imports',
];

let eslint: ESLint;
beforeAll(() => {
  eslint = new ESLint({ cwd: repoRoot, overrideConfig: [tseslint.configs.disableTypeChecked] });
});

async function boundaryViolations(code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${code}\n`, { filePath });
  const messages = result?.messages ?? [];
  const fatal = messages.filter((m) => m.fatal === true);
  if (fatal.length > 0)
    throw new Error(`lint of ${filePath} failed: ${fatal.map((m) => m.message).join('; ')}`);
  return messages
    .filter((m) => m.ruleId !== null && BOUNDARY_RULES.includes(m.ruleId))
    .map((m) => m.message);
}

describe('runtime boundary lint rule', () => {
  for (const file of COMPONENT_FILES) {
    for (const [what, code] of Object.entries(FORBIDDEN)) {
      it(`rejects ${what} in ${file}`, async () => {
        const violations = await boundaryViolations(code, file);
        expect(violations.length, `${what} passed the lint in ${file}`).toBeGreaterThan(0);
        expect(violations.join('\n')).toMatch(
          /nondeterministic: only src\/runtime\/real\/ and sim\/kernel\//,
        );
      });
    }
  }

  for (const file of EXEMPT_FILES) {
    it(`allows all of them in ${file}`, async () => {
      for (const [what, code] of Object.entries(FORBIDDEN)) {
        expect(await boundaryViolations(code, file), `${what} in ${file}`).toEqual([]);
      }
    });
  }

  it('allows deterministic uses of Date in component code', async () => {
    const code =
      'export const d = new Date(0).toISOString() + String(Date.UTC(2020, 0, 1)) + String(Date.parse("2020"));';
    expect(await boundaryViolations(code, 'src/ingester/example.ts')).toEqual([]);
  });
});
