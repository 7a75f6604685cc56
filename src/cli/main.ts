#!/usr/bin/env node
/**
 * The `strata` command. Subcommands: serve (default), sim, tools, conformance, bench.
 * This file only binds the process to the dispatcher in run.ts.
 */
import { runCli } from './run.js';

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: (s) => void process.stdout.write(s),
  stderr: (s) => void process.stderr.write(s),
});
