import { lookup, resolveSrv } from 'node:dns/promises';
import type { Resolver } from '../../cache/index.js';

/**
 * DNS for the memcached client's `dns+`/`dnssrv+` discovery. Host lookups go through the
 * system resolver (`getaddrinfo`), so `/etc/hosts` names such as `localhost` resolve as they
 * do for Go's resolver in Cortex; SRV records need a DNS server.
 */
export class NodeResolver implements Resolver {
  async lookupHost(host: string): Promise<string[]> {
    const found = await lookup(host, { all: true, verbatim: true });
    return [...new Set(found.map((a) => a.address))];
  }

  async lookupSrv(name: string): Promise<{ target: string; port: number }[]> {
    const records = await resolveSrv(name);
    return records.map((r) => ({ target: r.name, port: r.port }));
  }
}
