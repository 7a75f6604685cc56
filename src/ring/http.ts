/**
 * The ring status page (Cortex's `ring/http.go`): one table row per instance with its state,
 * health, heartbeat, tokens and share of the ring, and a "Forget" button that removes an
 * unhealthy instance from the ring. Framework-neutral: the component that owns the ring
 * registers `serveRingPage` at `/ingester/ring`, `/distributor/ring`, `/ring`...
 */
import type { KV, Logger } from '../runtime/index.js';
import { escapeHtml, htmlPage } from '../server/index.js';
import { JSON_RING_CODEC, type RingCodec } from './codec.js';
import type { RingInstance } from './replication.js';
import type { ReadRing } from './ring.js';

export interface RingPageOptions {
  /** Page heading; defaults to "<name> ring status". */
  title?: string;
  /** List every token of every instance (Cortex's `?tokens=true`). */
  showTokens?: boolean;
  /** A message shown above the table (e.g. the result of a forget). */
  message?: string;
}

/** The status page as a complete HTML document; every value is escaped. */
export function renderRingPage(
  ring: ReadRing,
  nowMs: number,
  options: RingPageOptions = {},
): string {
  const title = options.title ?? `${ring.ringName} ring status`;
  const desc = ring.desc();
  const ownership = ring.ownership();
  const instances: RingInstance[] = Object.entries(desc.ingesters)
    .map(([id, inst]) => ({ ...inst, id }))
    .sort((a, b) => (a.zone === b.zone ? cmp(a.id, b.id) : cmp(a.zone, b.zone)));
  const rows = instances.map((inst) => {
    const healthy = ring.isHealthy(inst);
    const share = ownership.get(inst.id) ?? 0;
    const ago = Math.round(nowMs / 1000 - inst.timestamp);
    const forget = healthy
      ? ''
      : `<form method="POST"><button name="forget" value="${escapeHtml(inst.id)}" type="submit">Forget</button></form>`;
    return [
      `<tr${healthy ? '' : ' class="unhealthy"'}>`,
      `<td>${escapeHtml(inst.id)}</td>`,
      `<td>${escapeHtml(inst.zone)}</td>`,
      `<td>${escapeHtml(inst.state)}</td>`,
      `<td>${healthy ? 'HEALTHY' : 'UNHEALTHY'}</td>`,
      `<td>${escapeHtml(inst.addr)}</td>`,
      `<td>${inst.registeredTimestamp > 0 ? escapeHtml(isoSeconds(inst.registeredTimestamp)) : ''}</td>`,
      `<td>${escapeHtml(isoSeconds(inst.timestamp))} (${ago}s ago)</td>`,
      `<td>${inst.tokens.length}</td>`,
      `<td>${(share * 100).toFixed(2)}%</td>`,
      `<td>${forget}</td>`,
      '</tr>',
    ].join('');
  });
  const tokenList = options.showTokens
    ? instances
        .map(
          (inst) => `<h3>${escapeHtml(inst.id)}</h3><p class="tokens">${inst.tokens.join(' ')}</p>`,
        )
        .join('\n')
    : '';
  const toggle = options.showTokens
    ? '<a href="?tokens=false">Hide tokens</a>'
    : '<a href="?tokens=true">Show tokens</a>';
  return htmlPage(
    title,
    `<h1>${escapeHtml(title)}</h1>
<p>Current time: ${escapeHtml(isoSeconds(Math.floor(nowMs / 1000)))}. Instances: ${instances.length}, healthy: ${instances.filter((i) => ring.isHealthy(i)).length}.</p>
${options.message === undefined ? '' : `<p class="message">${escapeHtml(options.message)}</p>`}
<table>
<thead><tr><th>Instance ID</th><th>Availability Zone</th><th>State</th><th>Health</th><th>Address</th><th>Registered At</th><th>Last Heartbeat</th><th>Tokens</th><th>Ownership</th><th>Actions</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>
<p>${toggle}</p>
${tokenList}`,
    'tr.unhealthy { background: #fde2e2; }\n.tokens { font-family: monospace; word-break: break-all; }\n',
  );
}

/** Removes `instanceId` from the ring key. Resolves to whether it was there. */
export async function forgetInstance(
  kv: KV,
  key: string,
  instanceId: string,
  codec: RingCodec = JSON_RING_CODEC,
): Promise<boolean> {
  let found = false;
  await kv.cas(key, (current) => {
    const desc = codec.decode(current);
    found = desc.ingesters[instanceId] !== undefined;
    if (!found) return undefined;
    delete desc.ingesters[instanceId];
    return codec.encode(desc);
  });
  return found;
}

export interface RingPageRequest {
  method: string;
  /** Query string parameters. */
  query: URLSearchParams;
  /** Parsed `application/x-www-form-urlencoded` body of a POST. */
  form?: URLSearchParams;
}

/**
 * The page's request from an HTTP framework's parts: string query parameters, and for a POST
 * the form (`readForm`), of which only `forget` matters.
 */
export async function ringPageRequest(
  method: string,
  query: Readonly<Record<string, unknown>>,
  readForm: () => Promise<{ get(name: string): string | undefined | null }>,
): Promise<RingPageRequest> {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (typeof v === 'string') params.append(k, v);
  const form = new URLSearchParams();
  const forget = method === 'POST' ? ((await readForm()).get('forget') ?? '') : '';
  if (forget !== '') form.set('forget', forget);
  return { method, query: params, form };
}

export interface RingPageResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * GET renders the page; POST with `forget=<id>` removes the instance and redirects back with
 * a 302 (post/redirect/get, so reloading the page does not repeat the action, as Cortex does).
 */
export async function serveRingPage(
  ring: ReadRing,
  deps: { kv: KV; key: string; nowMs: number; logger: Logger; codec?: RingCodec },
  req: RingPageRequest,
): Promise<RingPageResponse> {
  if (req.method === 'POST') {
    const id = req.form?.get('forget') ?? req.query.get('forget');
    if (id === null || id === '') {
      return text(400, 'missing form field "forget" naming the instance to remove');
    }
    const found = await forgetInstance(deps.kv, deps.key, id, deps.codec);
    deps.logger.info('instance forgotten from the ring via the status page', {
      ring: ring.ringName,
      id,
      found,
    });
    return { status: 302, headers: { Location: '#' }, body: '' };
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    return text(405, `method ${req.method} not allowed`);
  }
  const body = renderRingPage(ring, deps.nowMs, { showTokens: req.query.get('tokens') === 'true' });
  return { status: 200, headers: { 'Content-Type': 'text/html; charset=utf-8' }, body };
}

function text(status: number, body: string): RingPageResponse {
  return { status, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body };
}

function isoSeconds(seconds: number): string {
  const ms = seconds * 1000;
  // Timestamps beyond what Date can represent come from a corrupt ring; show the number.
  return Number.isFinite(ms) && Math.abs(ms) <= 8.64e15
    ? new Date(ms).toISOString().replace('.000Z', 'Z')
    : String(seconds);
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
