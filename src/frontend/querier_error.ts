/**
 * A querier's non-2xx answer as the frontend carries it (Cortex turns it into an httpgrpc
 * error holding the status and body): the status decides retries, and the HTTP layer sends
 * status and body on unchanged, so clients see exactly the querier's error.
 */
export class QuerierError extends Error {
  override name = 'QuerierError';
  constructor(
    readonly status: number,
    /** The Prometheus `errorType`, when the body is the API's error envelope. */
    readonly errorType: string | undefined,
    message: string,
    /** The querier's response body as received. */
    readonly body: string,
  ) {
    super(message);
  }
}

/** Reads a querier error answer; a body that is no error envelope becomes the message. */
export function querierError(status: number, body: string): QuerierError {
  try {
    const json = JSON.parse(body) as { status?: unknown; errorType?: unknown; error?: unknown };
    if (
      typeof json === 'object' &&
      json !== null &&
      json.status === 'error' &&
      typeof json.error === 'string'
    ) {
      const errorType = typeof json.errorType === 'string' ? json.errorType : undefined;
      return new QuerierError(status, errorType, json.error, body);
    }
  } catch {
    // Not JSON (a proxy's or a crashed querier's page): the text is the message.
  }
  return new QuerierError(status, undefined, body.trim(), body);
}
