#!/usr/bin/env -S node --max-semi-space-size=64
/**
 * The `strata` command. Subcommands: serve (default), sim, tools, conformance, bench.
 * This file only binds the process to the dispatcher in run.ts. The shebang carries the
 * server's Node flags (SERVER_NODE_FLAGS in node_flags.ts; `env -S` splits them).
 */
import { runCli } from './run.js';

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: (s) => void process.stdout.write(s),
  stderr: (s) => void process.stderr.write(s),
});
