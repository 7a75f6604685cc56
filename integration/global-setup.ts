/**
 * Vitest global setup: makes the external services and tools the integration tests need
 * available (installing Debian packages when missing) before any test file runs. Building
 * dist/ is left to the tests that start the binary (see strata-process.ts), so unit tests
 * run even while the tree does not build.
 */
import { ensureDebianTools, REQUIRED_TOOLS } from './services/debian.js';

export default function setup(): void {
  ensureDebianTools(REQUIRED_TOOLS);
}
