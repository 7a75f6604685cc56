/** Where a simulated Strata node keeps its files (the harness and the broken builds read them too). */
export const RUNTIME_CONFIG_DIR = '/etc/strata';
export const RUNTIME_CONFIG_PATH = `${RUNTIME_CONFIG_DIR}/runtime.yaml`;
export const TSDB_DIR = '/data/tsdb';
