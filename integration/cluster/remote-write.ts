/**
 * A remote-write 1.0 client for the end-to-end tests: requests are built with the
 * distributor's own encoder (`buildWriteRequest` + `encodeWriteRequest`, the bytes gogo
 * writes) and compressed with `snappyjs`, then POSTed the way Prometheus does (headers of
 * remote write 1.0). Answers are kept whole (status and text) so tests can check Strata's
 * messages.
 */
import { compress } from 'snappyjs';
import {
  buildWriteRequest,
  encodeWriteRequest,
  type PlainSeries,
} from '../../src/distributor/index.js';

/** The headers Prometheus 2.x sends with every remote-write request. */
export const REMOTE_WRITE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'application/x-protobuf',
  'Content-Encoding': 'snappy',
  'X-Prometheus-Remote-Write-Version': '0.1.0',
  'User-Agent': 'strata-integration-test',
};

/** The uncompressed `prometheus.WriteRequest` bytes of the given series. */
export function encodeSeries(series: PlainSeries[]): Uint8Array {
  return encodeWriteRequest(buildWriteRequest({ series }));
}

/** A remote-write body (snappy block of the encoded request) for the given series. */
export function pushBody(series: PlainSeries[]): Uint8Array {
  return compress(encodeSeries(series));
}

export interface PushAnswer {
  readonly status: number;
  readonly text: string;
}

/**
 * POSTs a body to `<url>` (e.g. `http://…/api/v1/push`); `tenant` goes in `X-Scope-OrgID`
 * when given. Network errors are answers with status 0 (the load loop records them as
 * failures rather than crashing).
 */
export async function postPush(
  url: string,
  body: Uint8Array,
  opts: { tenant?: string; headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<PushAnswer> {
  const headers: Record<string, string> = { ...REMOTE_WRITE_HEADERS, ...opts.headers };
  if (opts.tenant !== undefined) headers['X-Scope-OrgID'] = opts.tenant;
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers,
      body,
      ...(opts.signal === undefined ? {} : { signal: opts.signal }),
    });
    return { status: res.status, text: await res.text() };
  } catch (err) {
    return { status: 0, text: String(err) };
  }
}

/** Pushes the series to `<baseUrl>/api/v1/push`. */
export function pushSeries(
  baseUrl: string,
  series: PlainSeries[],
  tenant?: string,
): Promise<PushAnswer> {
  return postPush(`${baseUrl}/api/v1/push`, pushBody(series), {
    ...(tenant === undefined ? {} : { tenant }),
  });
}

/** `[name, value]` pairs from an object, sorted by name as Prometheus sends them. */
export function labelPairs(labels: Readonly<Record<string, string>>): [string, string][] {
  return Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
