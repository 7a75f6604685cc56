// Builds dist/ with tsc when it is missing or older than any TypeScript source, so
// `npm start` works on a fresh clone and stays fast on later runs.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const entry = join(root, 'dist/src/cli/main.js');

function newestSource(dir) {
  let newest = 0;
  for (const entryName of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entryName.name);
    if (entryName.isDirectory()) newest = Math.max(newest, newestSource(p));
    else if (entryName.name.endsWith('.ts')) newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

let built;
try {
  built = statSync(entry).mtimeMs;
} catch {
  built = 0; // never built
}
const sources = Math.max(
  ...['src', 'sim', 'bench'].map((d) => newestSource(join(root, d))),
  statSync(join(root, 'package-lock.json')).mtimeMs,
);
if (built < sources) {
  process.stderr.write('building strata (tsc)...\n');
  const r = spawnSync(
    process.execPath,
    [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json')],
    {
      stdio: 'inherit',
    },
  );
  if (r.status !== 0) process.exit(r.status ?? 1);
}
