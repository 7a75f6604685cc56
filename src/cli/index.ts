/**
 * The `strata` command line: dispatches subcommands to the modules that implement them.
 * It must never hold behaviour of its own beyond argument routing and usage text.
 */
export { runCli, type CliIO } from './run.js';
export { SERVER_NODE_FLAGS } from './node_flags.js';
