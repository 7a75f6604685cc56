/**
 * Test services built from their Go modules (`go install module@version`) into a cache
 * directory that outlives the checkout: `$STRATA_SERVICES_CACHE`, else
 * `~/.cache/strata-services/bin`. A binary already there is reused; a missing one is built,
 * which takes minutes the first time (MinIO especially), so the global setup does it once
 * before any test file runs.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export interface GoTool {
  /** Binary name, e.g. `minio`. */
  binary: string;
  /** `go install` argument, module path and pinned version. */
  module: string;
}

export const MINIO_TOOL: GoTool = {
  binary: 'minio',
  module: 'github.com/minio/minio@v0.0.0-20260212201848-7aac2a2c5b7c',
};

export const FAKE_GCS_TOOL: GoTool = {
  binary: 'fake-gcs-server',
  module: 'github.com/fsouza/fake-gcs-server@v1.56.1',
};

/** The Go-built services the integration tests use. */
export const GO_TOOLS: readonly GoTool[] = [MINIO_TOOL, FAKE_GCS_TOOL];

export function servicesBinDir(): string {
  const fromEnv = process.env['STRATA_SERVICES_CACHE'];
  return fromEnv !== undefined && fromEnv !== ''
    ? fromEnv
    : join(homedir(), '.cache', 'strata-services', 'bin');
}

/** Where `tool`'s binary is (or will be after `ensureGoTools`). */
export function goToolPath(tool: GoTool): string {
  return join(servicesBinDir(), tool.binary);
}

/**
 * Builds every missing tool with `go install` into the cache directory. Throws with the
 * command that would fix it when Go is missing or a build fails.
 */
export function ensureGoTools(tools: readonly GoTool[], opts: { timeoutMs?: number } = {}): void {
  const dir = servicesBinDir();
  const missing = tools.filter((t) => !existsSync(join(dir, t.binary)));
  if (missing.length === 0) return;
  mkdirSync(dir, { recursive: true });
  for (const tool of missing) {
    const command = `GOBIN=${dir} go install ${tool.module}`;
    process.stderr.write(
      `global setup: building ${tool.binary} (${command}); this takes minutes once\n`,
    );
    try {
      execFileSync('go', ['install', tool.module], {
        env: { ...process.env, GOBIN: dir },
        stdio: ['ignore', 'ignore', 'inherit'],
        timeout: opts.timeoutMs ?? 1_800_000,
      });
    } catch (err) {
      throw new Error(`could not build ${tool.binary}; run: ${command}`, { cause: err });
    }
    if (!existsSync(join(dir, tool.binary))) {
      throw new Error(`${command} succeeded but ${join(dir, tool.binary)} is missing`);
    }
  }
}
