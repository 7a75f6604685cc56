/**
 * Vitest global setup: makes the external services the integration tests need available
 * (installing Debian packages when missing) before any test file runs.
 */
export default async function setup(): Promise<void> {
  // Filled in as integration layers land; see integration/services/.
}
