import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SERVER_NODE_FLAGS } from './node_flags.js';

const ROOT = join(import.meta.dirname, '..', '..');

describe('the server’s Node flags', () => {
  it('are what the strata bin’s shebang and npm start pass', () => {
    const shebang = readFileSync(join(ROOT, 'src', 'cli', 'main.ts'), 'utf8').split('\n')[0];
    expect(shebang).toBe(`#!/usr/bin/env -S node ${SERVER_NODE_FLAGS.join(' ')}`);
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts['start']).toMatch(
      new RegExp(`^node ${SERVER_NODE_FLAGS.join(' ')} dist/src/cli/main\\.js serve `),
    );
  });
});
