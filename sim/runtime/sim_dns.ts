import type { Resolver } from '../../src/cache/index.js';
import type { Incarnation, SimKernel } from '../kernel/index.js';

/** Virtual milliseconds a lookup takes (a resolver on the LAN: constant, so it draws nothing). */
export const SIM_DNS_LATENCY_MS = 1;

/**
 * The cluster's DNS for cache discovery: names whose A records the scenario sets and changes
 * (`memcached_dns`, flapping membership). A simulated memcached server's name is its own
 * address, so it resolves to itself, the way an IP literal does for a real resolver; any other
 * name without records fails with ENOTFOUND. SRV names (`_memcached._tcp.<name>`) answer one
 * record per host of `<name>`, on the memcached port.
 */
export class SimDnsRecords {
  private readonly records = new Map<string, readonly string[]>();
  private readonly failing = new Set<string>();

  constructor(
    private readonly selfResolving: (host: string) => boolean,
    private readonly srvPort: number,
  ) {}

  /** Sets the A records of `name` (an empty list: the name exists with no servers). */
  set(name: string, hosts: readonly string[]): void {
    this.records.set(name, [...hosts]);
  }

  get(name: string): readonly string[] | undefined {
    return this.records.get(name);
  }

  /** Makes lookups of `name` fail (true) or answer again (false). */
  setFailing(name: string, failing: boolean): void {
    if (failing) this.failing.add(name);
    else this.failing.delete(name);
  }

  names(): string[] {
    return [...this.records.keys()].sort();
  }

  lookupHost(host: string): string[] {
    const found = this.failing.has(host) ? undefined : this.records.get(host);
    if (found !== undefined) return [...found];
    if (!this.failing.has(host) && this.selfResolving(host)) return [host];
    throw new Error(`lookup ${host}: ENOTFOUND`);
  }

  lookupSrv(name: string): { target: string; port: number }[] {
    // `_service._proto.` labels name the service; the hosts are those of the rest.
    const base = name.replace(/^(_[^.]+\.)+/, '');
    if (this.failing.has(name) || this.failing.has(base) || !this.records.has(base)) {
      throw new Error(`lookup SRV ${name}: ENOTFOUND`);
    }
    return this.records.get(base)!.map((target) => ({ target, port: this.srvPort }));
  }
}

/**
 * One process's resolver over the cluster's records: each answer comes after a constant
 * latency, in an event of the process's incarnation (a crashed process never hears it).
 */
export class SimResolver implements Resolver {
  constructor(
    private readonly records: SimDnsRecords,
    private readonly deps: { kernel: SimKernel; owner: Incarnation },
  ) {}

  lookupHost(host: string): Promise<string[]> {
    return this.answer(`A ${host}`, () => this.records.lookupHost(host));
  }

  lookupSrv(name: string): Promise<{ target: string; port: number }[]> {
    return this.answer(`SRV ${name}`, () => this.records.lookupSrv(name));
  }

  private answer<T>(detail: string, read: () => T): Promise<T> {
    const { kernel, owner } = this.deps;
    return new Promise<T>((resolve, reject) => {
      // Read when the answer is due: a record changed meanwhile is what the server would say.
      kernel.after(SIM_DNS_LATENCY_MS, { owner, kind: 'dns.answer', detail }, () => {
        try {
          resolve(read());
        } catch (err) {
          reject(err instanceof Error ? err : new Error(String(err)));
        }
      });
    });
  }
}
