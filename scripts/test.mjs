// `npm test`: builds the binary (integration tests start it), runs every test layer with
// vitest, and ends with the plain summary line `N passed, M failed[, K skipped]` counted
// from vitest's JSON reporter, which CI reads. Extra arguments go to vitest.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { summarize } from './summary.mjs';

const root = new URL('..', import.meta.url).pathname;
const resultsFile = join(root, '.vitest-results.json');
const summaryFile = join(root, '.vitest-summary.txt');
rmSync(resultsFile, { force: true });
rmSync(summaryFile, { force: true });

const build = spawnSync(process.execPath, [join(root, 'scripts/build-if-needed.mjs')], {
  stdio: 'inherit',
});
if (build.status !== 0) {
  finish('0 passed, 1 failed', 1, 'build failed');
}

const vitest = spawnSync(
  process.execPath,
  [
    join(root, 'node_modules/vitest/vitest.mjs'),
    'run',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${resultsFile}`,
    ...process.argv.slice(2),
  ],
  { stdio: 'inherit', cwd: root },
);

if (!existsSync(resultsFile)) {
  finish('0 passed, 1 failed', 1, 'vitest wrote no JSON results');
}
const results = JSON.parse(readFileSync(resultsFile, 'utf8'));
const { line, green } = summarize(results);
const ok = vitest.status === 0 && green;
finish(line, ok ? 0 : 1);

function finish(summary, code, reason) {
  if (reason) process.stderr.write(`npm test: ${reason}\n`);
  writeFileSync(summaryFile, `${summary}\n`);
  process.stdout.write(`${summary}\n`);
  process.exit(code);
}
