/**
 * One page of S3 ListObjectsV2, requested through the minio client (so it is signed and its
 * errors parsed as usual) but read by our own parser: the client's XML parser turns keys that
 * look like numbers into numbers (`0` disappears, `007` becomes `7`), which would drop or
 * rename objects. Keys are asked for URL-encoded, so the XML holds no markup inside them.
 */
import type { Client } from 'minio';
import { readAll } from './objstore_common.js';

export interface S3ListPage {
  /** Object keys and common prefixes (each with its trailing `/`), in the order received. */
  entries: string[];
  /** Continuation token of the next page, or undefined on the last one. */
  next: string | undefined;
}

const MAX_KEYS = 1000;

export async function listObjectsV2Page(
  client: Client,
  bucketName: string,
  prefix: string,
  delimiter: string,
  continuationToken: string | undefined,
  signal: AbortSignal | undefined,
): Promise<S3ListPage> {
  const params: string[] = [
    'list-type=2',
    'encoding-type=url',
    `prefix=${escape(prefix)}`,
    `delimiter=${escape(delimiter)}`,
    `max-keys=${MAX_KEYS}`,
  ];
  if (continuationToken !== undefined)
    params.push(`continuation-token=${escape(continuationToken)}`);
  params.sort();
  const res = await client.makeRequestAsync({ method: 'GET', bucketName, query: params.join('&') });
  const xml = new TextDecoder().decode(await readAll(res, signal));
  return parseListObjectsV2(xml);
}

/** Parses a ListBucketResult (encoding-type=url) into keys, prefixes and the next token. */
export function parseListObjectsV2(xml: string): S3ListPage {
  if (!xml.includes('<ListBucketResult')) {
    throw new Error(`unexpected ListObjectsV2 answer: ${xml.slice(0, 200)}`);
  }
  const entries: string[] = [];
  for (const m of xml.matchAll(/<Contents>([\s\S]*?)<\/Contents>/g)) {
    const key = tag(m[1] ?? '', 'Key');
    if (key !== undefined) entries.push(decodeKey(key));
  }
  for (const m of xml.matchAll(/<CommonPrefixes>([\s\S]*?)<\/CommonPrefixes>/g)) {
    const p = tag(m[1] ?? '', 'Prefix');
    if (p !== undefined) entries.push(decodeKey(p));
  }
  const truncated = tag(xml, 'IsTruncated') === 'true';
  const token = tag(xml, 'NextContinuationToken');
  return {
    entries,
    next: truncated && token !== undefined && token !== '' ? unescapeXml(token) : undefined,
  };
}

function tag(xml: string, name: string): string | undefined {
  const m = new RegExp(`<${name}>([\\s\\S]*?)</${name}>`).exec(xml);
  return m?.[1];
}

/** URL-decoded key; S3's url encoding writes a space as `+` and a plus as `%2B`. */
function decodeKey(raw: string): string {
  return decodeURIComponent(unescapeXml(raw).replace(/\+/g, ' '));
}

function unescapeXml(s: string): string {
  return s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
}

/** S3's query escaping (RFC 3986: encodeURIComponent plus `!'()*`). */
function escape(s: string): string {
  return encodeURIComponent(s).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}
