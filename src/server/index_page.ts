/**
 * The `/` index page: every endpoint the running targets registered, grouped by the module
 * that owns it, linked when it can be opened with a plain GET. It is built at request time,
 * so routes registered by modules initialised after the server appear too.
 */
import { escapeHtml, htmlPage } from './html.js';
import { type HttpServer, type RegisteredRoute, writeBody } from './http_server.js';
import { TENANT_HEADER } from './tenant.js';

export function registerIndexRoute(server: HttpServer): void {
  server.registerRoute({
    methods: ['GET'],
    path: '/',
    module: 'server',
    description: 'This page',
    tenant: false,
    hidden: true,
    handler: (_req, res) => {
      writeBody(
        res,
        200,
        'text/html; charset=utf-8',
        renderIndexPage(server.routes(), server.config.authEnabled),
      );
    },
  });
}

export function renderIndexPage(routes: readonly RegisteredRoute[], authEnabled: boolean): string {
  const byModule = new Map<string, RegisteredRoute[]>();
  for (const r of routes) {
    if (r.hidden) continue;
    const list = byModule.get(r.module) ?? [];
    list.push(r);
    byModule.set(r.module, list);
  }
  const sections = [...byModule.entries()].map(([module, list]) => {
    const items = list.map((r) => `<li>${renderRoute(r, authEnabled)}</li>`).join('\n');
    return `<h2>${escapeHtml(module)}</h2>\n<ul>\n${items}\n</ul>`;
  });
  const tenantNote = authEnabled
    ? `<p class="note">Endpoints marked <em>tenant</em> need the <code>${TENANT_HEADER}</code> header.</p>`
    : `<p class="note">Multi-tenancy is disabled (<code>-auth.enabled=false</code>): every request acts as tenant <code>fake</code>.</p>`;
  return htmlPage('Strata', `<h1>Strata</h1>\n${tenantNote}\n${sections.join('\n')}`);
}

function renderRoute(r: RegisteredRoute, authEnabled: boolean): string {
  // Paths with parameters cannot be opened as they are; everything else GET-able is a link.
  const linkable = r.methods.includes('GET') && !r.path.includes(':');
  const path = escapeHtml(r.path);
  const target = linkable ? `<a href="${path}">${path}</a>` : `<code>${path}</code>`;
  const aliases =
    r.aliases.length > 0
      ? ` <span class="note">(also ${r.aliases.map((a) => `<code>${escapeHtml(a)}</code>`).join(', ')})</span>`
      : '';
  const tenant = r.tenant && authEnabled ? ' <em>tenant</em>' : '';
  return `${r.methods.join(', ')} ${target}${aliases}${tenant} — ${escapeHtml(r.description)}`;
}
