/**
 * The `strata sim` command: single runs (with `--trace`, `--html`, `--swarm-profile`),
 * swarms (`--swarm N`) and `sim diff`. It sits above the scenario runner and the swarm, which
 * both know nothing of the command line.
 */
export { runSimCommand, type SimCommandDeps, type SimCommandIO } from './sim_command.js';
