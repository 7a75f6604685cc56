/**
 * Makes Debian packages the tests need present: if a package's binary is missing, installs
 * the package with apt-get (the machines tests run on are root with Debian's registry). A
 * missing binary that cannot be installed fails the setup with the command that would fix it.
 */
import { execFileSync, spawnSync } from 'node:child_process';

export interface DebianTool {
  /** Binary that must be on PATH afterwards, e.g. `promtool`. */
  binary: string;
  /** Debian package providing it, e.g. `prometheus`. */
  pkg: string;
}

export function which(binary: string): string | undefined {
  const r = spawnSync('sh', ['-c', `command -v ${binary}`], { encoding: 'utf8' });
  const out = r.stdout.trim();
  return r.status === 0 && out !== '' ? out : undefined;
}

export function ensureDebianTools(tools: readonly DebianTool[]): void {
  const missing = tools.filter((t) => which(t.binary) === undefined);
  if (missing.length === 0) return;
  const pkgs = [...new Set(missing.map((t) => t.pkg))];
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const isRoot = process.getuid?.() === 0;
  const sudo = isRoot ? [] : ['sudo', '-n'];
  const run = (args: string[]): void => {
    const [cmd, ...rest] = [...sudo, ...args];
    execFileSync(cmd!, rest, { env, stdio: ['ignore', 'ignore', 'inherit'], timeout: 600_000 });
  };
  try {
    run(['apt-get', 'update', '-qq']);
    run(['apt-get', 'install', '-y', '-qq', '--no-install-recommends', ...pkgs]);
  } catch (err) {
    throw new Error(
      `could not install ${pkgs.join(', ')} (needed for ${missing.map((t) => t.binary).join(', ')}); ` +
        `run: apt-get update && apt-get install -y ${pkgs.join(' ')}`,
      { cause: err },
    );
  }
  for (const t of missing) {
    if (which(t.binary) === undefined) {
      throw new Error(`installed ${t.pkg} but ${t.binary} is still not on PATH`);
    }
  }
}

/** Debian tools used by the integration tests of the current issues. */
export const REQUIRED_TOOLS: readonly DebianTool[] = [
  { binary: 'promtool', pkg: 'prometheus' },
  { binary: 'prometheus-node-exporter', pkg: 'prometheus-node-exporter' },
  { binary: 'etcd', pkg: 'etcd-server' },
  // Three real memcached servers behind the cache clients (integration/memcached*.test.ts).
  { binary: 'memcached', pkg: 'memcached' },
  // Renders `strata sim --html` pages headless in sim/scenario/html_report.test.ts.
  { binary: 'chromium', pkg: 'chromium' },
];
