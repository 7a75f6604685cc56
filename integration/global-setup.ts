/**
 * Vitest global setup: makes the external services and tools the integration tests need
 * available (installing Debian packages when missing, building MinIO and fake-gcs-server
 * from their Go modules into the services cache when missing) before any test file runs.
 * Building dist/ is left to the tests that start the binary (see strata-process.ts), so unit
 * tests run even while the tree does not build.
 */
import { ensureDebianTools, REQUIRED_TOOLS } from './services/debian.js';
import { ensureGoTools, GO_TOOLS } from './services/go_build.js';

export default function setup(): void {
  ensureDebianTools(REQUIRED_TOOLS);
  ensureGoTools(GO_TOOLS);
}
