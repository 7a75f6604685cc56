#!/usr/bin/env node
/**
 * The `strata` command. Subcommands: serve (default), sim, tools, conformance, bench.
 * This file only dispatches; each subcommand lives with the module that implements it.
 */
import { runCli } from './run.js';

const code = await runCli(process.argv.slice(2), {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
});
if (code !== undefined) process.exitCode = code;
