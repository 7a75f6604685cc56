/**
 * Strata processes for the multi-process tests: a named node that can be killed, restarted
 * with the same arguments on the same ports (same ring address), and stopped for good with
 * its temporary working directory removed; plus readers for the ring status page and the
 * Prometheus text format, which the tests use to watch the cluster from outside.
 */
import { rm } from 'node:fs/promises';
import { startStrata, waitFor200, type StrataProcess } from '../strata-process.js';

export class StrataNode {
  private current: StrataProcess;
  private readonly cwds: string[] = [];

  private constructor(
    readonly name: string,
    readonly args: readonly string[],
    first: StrataProcess,
  ) {
    this.current = first;
    this.cwds.push(first.cwd);
  }

  static async start(name: string, args: readonly string[]): Promise<StrataNode> {
    return new StrataNode(name, args, await startStrata(args));
  }

  get url(): string {
    return this.current.url;
  }
  get grpcPort(): number {
    return this.current.grpcPort;
  }
  /** The address the node registers in the ring (`-ingester.lifecycler.addr` default). */
  get rpcAddress(): string {
    return `127.0.0.1:${this.current.grpcPort}`;
  }
  get pid(): number | undefined {
    return this.current.proc.pid;
  }
  running(): boolean {
    return this.current.proc.exitCode === null && this.current.proc.signalCode === null;
  }
  output(): string {
    return `--- ${this.name} ---\n${this.current.output().slice(-8_000)}`;
  }

  /** Waits for `/ready` to answer 200; throws with the node's output otherwise. */
  async waitReady(timeoutMs = 30_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    let status = 0;
    // Short polls, so a process that exits at startup fails the wait at once.
    while (this.running() && Date.now() < end) {
      status = await waitFor200(`${this.url}/ready`, Math.min(1_000, end - Date.now()));
      if (status === 200) return;
    }
    const why = this.running() ? `/ready answered ${status} after ${timeoutMs} ms` : 'exited';
    throw new Error(`${this.name}: ${why}\n${this.output()}`);
  }

  /** SIGKILL: no shutdown path runs (no flush, no ring update). */
  async kill(): Promise<void> {
    await this.current.stop('SIGKILL');
  }

  /** Starts the node again with the same arguments and ports. */
  async restart(): Promise<void> {
    if (this.running()) throw new Error(`${this.name} is still running`);
    this.current = await startStrata(this.args, {
      httpPort: this.current.httpPort,
      grpcPort: this.current.grpcPort,
    });
    this.cwds.push(this.current.cwd);
  }

  /** SIGTERM, SIGKILL after `graceMs`; removes the working directories. */
  async stop(graceMs = 15_000): Promise<number | string> {
    const proc = this.current;
    const timer = setTimeout(() => proc.proc.kill('SIGKILL'), graceMs);
    try {
      return await proc.stop('SIGTERM');
    } finally {
      clearTimeout(timer);
      await Promise.all(this.cwds.map((d) => rm(d, { recursive: true, force: true })));
    }
  }
}

export interface RingRow {
  readonly id: string;
  readonly zone: string;
  readonly state: string;
  readonly health: string;
  readonly addr: string;
  readonly tokens: number;
}

/** The instances of a ring status page (Cortex's table: ID, zone, state, health, address…). */
export function parseRingPage(html: string): RingRow[] {
  const rows: RingRow[] = [];
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(html)?.[1] ?? '';
  for (const tr of body.split(/<\/tr>/)) {
    const cells = [...tr.matchAll(/<td>([\s\S]*?)<\/td>/g)].map((m) => unescapeHtml(m[1] ?? ''));
    if (cells.length < 8) continue;
    rows.push({
      id: cells[0] ?? '',
      zone: cells[1] ?? '',
      state: cells[2] ?? '',
      health: cells[3] ?? '',
      addr: cells[4] ?? '',
      tokens: Number(cells[7]),
    });
  }
  return rows;
}

function unescapeHtml(s: string): string {
  return s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

export async function fetchRing(url: string): Promise<RingRow[]> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return parseRingPage(await res.text());
}

/**
 * Polls a ring page until `ok(rows)` holds; throws with the last rows seen (and `context`,
 * e.g. the nodes' output) after `timeoutMs`.
 */
export async function waitForRing(
  url: string,
  ok: (rows: RingRow[]) => boolean,
  timeoutMs: number,
  context: () => string = () => '',
): Promise<RingRow[]> {
  const end = Date.now() + timeoutMs;
  let last: RingRow[] | string = 'no answer';
  while (Date.now() < end) {
    try {
      const rows = await fetchRing(url);
      if (ok(rows)) return rows;
      last = rows;
    } catch (err) {
      last = String(err);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(
    `ring at ${url} not as expected after ${timeoutMs} ms: ${JSON.stringify(last)}\n${context()}`,
  );
}

/** The value of one sample line of a Prometheus text exposition (undefined when absent). */
export function metricValue(
  text: string,
  name: string,
  labels: Readonly<Record<string, string>> = {},
): number | undefined {
  let sum: number | undefined;
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (m === null || m[1] !== name) continue;
    const set = m[2] ?? '';
    if (!Object.entries(labels).every(([k, v]) => set.includes(`${k}="${v}"`))) continue;
    sum = (sum ?? 0) + Number(m[3]);
  }
  return sum;
}

/** Sums every sample of `name` whose labels include `labels` (all series when empty). */
export async function scrapeValue(
  metricsUrl: string,
  name: string,
  labels: Readonly<Record<string, string>> = {},
): Promise<number | undefined> {
  const res = await fetch(metricsUrl);
  return metricValue(await res.text(), name, labels);
}
