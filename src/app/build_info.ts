import type { BuildInfo } from '../api/index.js';

/** Strata's release version (package.json's `version`). */
export const STRATA_VERSION = '0.1.0';

/** What a process reports without build information (tests, the simulator). */
export const DEV_BUILD_INFO: BuildInfo = Object.freeze({
  version: STRATA_VERSION,
  revision: '',
  branch: '',
  buildUser: '',
  buildDate: '',
  goVersion: 'node',
});

/** What `strata serve` reports: the version and the Node.js runtime it runs on. */
export function serveBuildInfo(nodeVersion: string): BuildInfo {
  return { ...DEV_BUILD_INFO, goVersion: `node ${nodeVersion}` };
}
