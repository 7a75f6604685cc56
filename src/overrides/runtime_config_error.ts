/**
 * The one error the runtime configuration file can produce: the message names the offending
 * key, tenant, value and (when known) the line, so an operator can fix the file from the log
 * line alone.
 */
export class RuntimeConfigError extends Error {
  override readonly name = 'RuntimeConfigError';
  constructor(message: string) {
    super(message);
  }
}
