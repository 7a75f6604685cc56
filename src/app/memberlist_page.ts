/**
 * The `/memberlist` status page (Cortex's memberlist KV status page): this member, every
 * member with its state, incarnation and address, every key with its codec, version, size and
 * deleted flag, and the recent sent and received KV messages. `?viewKey=<key>` shows a key's
 * value as clients read it; `?format=json` returns the whole status as JSON.
 */
import type { Clock, MemberlistKV, MemberlistStatus, MessageRecord } from '../runtime/index.js';
import { UnavailableError, escapeHtml, htmlPage, type HttpServer } from '../server/index.js';

export interface MemberlistPageResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** GET handling, framework-neutral: the page, one key's value, or the status as JSON. */
export function serveMemberlistPage(
  kv: MemberlistKV,
  nowMs: number,
  query: URLSearchParams,
): MemberlistPageResponse {
  const viewKey = query.get('viewKey');
  if (viewKey !== null) {
    const value = kv.clientValue(viewKey);
    if (value === undefined)
      return {
        status: 404,
        headers: { 'content-type': 'text/plain; charset=utf-8' },
        body: `key ${viewKey} not found\n`,
      };
    return {
      status: 200,
      headers: { 'content-type': 'text/plain; charset=utf-8' },
      body: new TextDecoder().decode(value),
    };
  }
  const status = kv.status();
  if (query.get('format') === 'json')
    return {
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(status),
    };
  return {
    status: 200,
    headers: { 'content-type': 'text/html; charset=utf-8' },
    body: renderMemberlistPage(status, nowMs),
  };
}

export function renderMemberlistPage(status: MemberlistStatus, nowMs: number): string {
  const e = escapeHtml;
  const iso = (ms: number): string => (ms > 0 ? new Date(ms).toISOString() : '-');
  const members = status.members
    .map(
      (m) =>
        `<tr><td>${e(m.name)}</td><td>${e(m.address)}</td><td>${e(m.state.toUpperCase())}</td>` +
        `<td>${m.incarnation}</td><td>${e(iso(m.stateChangeMs))} (${Math.round((nowMs - m.stateChangeMs) / 1000)}s ago)</td></tr>`,
    )
    .join('\n');
  const keys = status.keys
    .map(
      (k) =>
        `<tr><td><a href="?viewKey=${encodeURIComponent(k.key)}">${e(k.key)}</a></td><td>${e(k.codec)}</td>` +
        `<td>${k.version}</td><td>${k.sizeBytes}</td><td>${k.parts}</td><td>${k.deleted ? 'yes' : 'no'}</td>` +
        `<td>${e(iso(k.updatedAtMs))}</td></tr>`,
    )
    .join('\n');
  const body = `<h1>Memberlist status</h1>
<p>Member <code>${e(status.name)}</code> at <code>${e(status.address ?? '-')}</code>,
incarnation ${status.incarnation}, ${e(status.phase)}; ${status.numMembers} live members;
health score ${status.healthScore} (0 is healthy); queued broadcasts: ${status.queued.local} local,
${status.queued.gossip} forwarded.</p>
<h2>KV store</h2>
<table><tr><th>Key</th><th>Codec</th><th>Version</th><th>Size (bytes)</th><th>Parts</th><th>Deleted</th><th>Updated</th></tr>
${keys}
</table>
<h2>Members</h2>
<table><tr><th>Name</th><th>Address</th><th>State</th><th>Incarnation</th><th>State changed</th></tr>
${members}
</table>
${messagesSection('Received messages', status.receivedMessages)}
${messagesSection('Sent messages', status.sentMessages)}`;
  return htmlPage('Memberlist status', body);
}

function messagesSection(title: string, messages: readonly MessageRecord[] | undefined): string {
  if (messages === undefined)
    return `<h2>${escapeHtml(title)}</h2>\n<p class="note">Message history is off (-memberlist.message-history-buffer-bytes=0).</p>`;
  const rows = [...messages]
    .reverse()
    .map(
      (m) =>
        `<tr><td>${m.id}</td><td>${escapeHtml(new Date(m.timeMs).toISOString())}</td><td>${escapeHtml(m.key)}</td>` +
        `<td>${escapeHtml(m.codec)}</td><td>${m.sizeBytes}</td><td>${m.version}</td><td>${m.deleted ? 'yes' : 'no'}</td>` +
        `<td>${escapeHtml(m.changes.join(', '))}</td></tr>`,
    )
    .join('\n');
  return `<h2>${escapeHtml(title)}</h2>
<table><tr><th>ID</th><th>Time</th><th>Key</th><th>Codec</th><th>Size (bytes)</th><th>Version</th><th>Deleted</th><th>Changes</th></tr>
${rows}
</table>`;
}

/**
 * Registers `/memberlist` (GET). `kv` is looked up per request: the page answers 503 while
 * this process runs no memberlist KV.
 */
export function registerMemberlistPage(
  http: HttpServer,
  deps: { kv: () => MemberlistKV | undefined; clock: Clock },
): void {
  http.registerRoute({
    methods: ['GET'],
    path: '/memberlist',
    module: 'memberlist-kv',
    description: 'Memberlist status: members, gossiped keys and recent messages',
    tenant: false,
    handler: (req, res) => {
      const kv = deps.kv();
      if (kv === undefined)
        throw new UnavailableError(
          'this process runs no memberlist KV (no ring uses store: memberlist)',
        );
      const query = new URLSearchParams();
      for (const [k, v] of Object.entries(req.query)) if (typeof v === 'string') query.append(k, v);
      const out = serveMemberlistPage(kv, deps.clock.now(), query);
      res.status(out.status).set(out.headers).send(out.body);
    },
  });
}
