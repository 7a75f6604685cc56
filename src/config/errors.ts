/** The one error class of the configuration module: every bad flag, YAML key or value. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}
