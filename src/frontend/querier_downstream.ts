/**
 * The last stage of the range path: a (sub-)query sent to a querier through the queue as
 * the querier's own `query_range` request (Cortex's prometheusCodec.EncodeRequest), and the
 * answer decoded, or turned into a QuerierError carrying the querier's status and body.
 */
import type { RangeHandler } from './handler.js';
import type { RoundTrip } from './http_frontend.js';
import { querierError } from './querier_error.js';
import { rangeRequestParams, type RangeRequest } from './range_request.js';
import { decodeRangeResponse } from './range_response.js';

/**
 * `path`: where the querier serves query_range, e.g. `/prometheus/api/v1/query_range`. For
 * requests `passThrough` holds for (a chain that never reads their answers, see
 * answersPassThrough) a successful body is handed on as it is, not decoded: decoding and
 * re-encoding a large matrix cost more than evaluating it.
 */
export function querierRangeHandler(
  roundTrip: RoundTrip,
  path: string,
  passThrough: (req: RangeRequest) => boolean = () => false,
): RangeHandler {
  const decoder = new TextDecoder();
  return async (req, signal) => {
    const body = new URLSearchParams(rangeRequestParams(req)).toString();
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      'x-scope-orgid': req.tenantIds.join('|'),
    };
    for (const [name, values] of req.headers) headers[name] = values.join(', ');
    const answer = await roundTrip(
      req.tenantIds.join('|'),
      { method: 'POST', url: path, headers, body: new TextEncoder().encode(body) },
      signal,
    );
    const status = answer.status ?? 502;
    if (status !== 200) throw querierError(status, decoder.decode(answer.body));
    const responseHeaders = new Map<string, string[]>();
    for (const [name, value] of Object.entries(answer.headers)) responseHeaders.set(name, [value]);
    if (passThrough(req))
      return { series: [], warnings: [], infos: [], headers: responseHeaders, body: answer.body };
    return decodeRangeResponse(decoder.decode(answer.body), responseHeaders);
  };
}
