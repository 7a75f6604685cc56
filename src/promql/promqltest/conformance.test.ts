// Runs every Prometheus PromQL test script (../shared/conformance/promql-testdata, v3.14.0)
// on every engine that exists (engines.ts). A failing case fails this test unless the
// engine's known-failures list names it (known_failures.txt for the default engine,
// known_failures.<engine>.txt for others); a listed case that now passes fails it too, so
// the lists can only shrink.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CONFORMANCE_ENGINES, conformanceParse, type EngineFactory } from './engines.js';
import { parseKnownFailures } from './known_failures.js';
import { runScript, type CaseResult } from './runner.js';
import { summarize } from './summary.js';

const here = dirname(fileURLToPath(import.meta.url));
const TESTDATA = join(here, '../../../../shared/conformance/promql-testdata');

const engines = Object.entries(CONFORMANCE_ENGINES).filter(
  (e): e is [string, EngineFactory] => e[1] !== undefined,
);

describe('Prometheus PromQL conformance scripts', () => {
  it('has the default engine', () => {
    expect(engines.map(([name]) => name)).toContain('default');
  });

  for (const [name, factory] of engines) {
    it(
      `${name} engine: passes every float-sample case not listed as a known failure`,
      { timeout: 600_000 },
      async () => {
        expect(existsSync(TESTDATA), `missing ${TESTDATA}`).toBe(true);
        const engine = factory({});
        const files = readdirSync(TESTDATA)
          .filter((f) => f.endsWith('.test'))
          .sort();
        expect(files.length).toBeGreaterThan(0);
        const results: CaseResult[] = [];
        for (const file of files) {
          const text = readFileSync(join(TESTDATA, file), 'utf8');
          results.push(...(await runScript(file, text, { engine, parseExpr: conformanceParse })));
        }
        const summary = summarize(results);
        const lines = [`PromQL conformance, ${name} engine:`];
        lines.push(
          ...[...summary.perFile].map(
            ([f, [p, x, s]]) => `  ${f}: ${p} passed, ${x} failed, ${s} skipped`,
          ),
        );
        lines.push(...summary.skipReasons.map(([reason, n]) => `  skipped ${n}: ${reason}`));
        lines.push(
          `${summary.passed} passed, ${summary.failed} failed, ${summary.skipped} skipped`,
        );
        console.log(lines.join('\n'));

        const listFile = join(
          here,
          name === 'default' ? 'known_failures.txt' : `known_failures.${name}.txt`,
        );
        const known = existsSync(listFile)
          ? parseKnownFailures(readFileSync(listFile, 'utf8'))
          : [];
        const knownKeys = new Set(known.map((k) => `${k.file}:${k.line}`));
        const byKey = new Map(results.map((r) => [`${r.file}:${r.line}`, r]));
        const unexpected = results
          .filter((r) => r.status === 'failed' && !knownKeys.has(`${r.file}:${r.line}`))
          .map((r) => `${r.file}:${r.line}: ${r.expr}: ${r.reason}`);
        const nowPassing = known
          .filter((k) => byKey.get(`${k.file}:${k.line}`)?.status !== 'failed')
          .map((k) => {
            const status = byKey.get(`${k.file}:${k.line}`)?.status ?? 'not a case';
            return `${k.file}:${k.line} is listed as a known failure but is ${status}: remove it from ${listFile}`;
          });
        expect([...unexpected, ...nowPassing]).toEqual([]);
      },
    );
  }
});
