import {
  ScenarioError,
  formatDuration,
  readDuration,
  readNumber,
  readObject,
  readString,
} from '../../fields/index.js';

/**
 * Deliberate bugs for proving that the checks catch what they claim to catch. `none` is the
 * correct protocol; every other value breaks one rule of it.
 */
export const PINGPONG_BUGS = [
  'none',
  /** Acks right after appending; a background job fsyncs every `lazy_fsync_interval`. */
  'ack_before_fsync',
  /** Appends every delivery, even ids already in the log (duplicated messages, retries). */
  'no_dedupe',
  /** Keeps a torn last line after a power loss; the next append glues onto it. */
  'no_recovery_truncate',
] as const;

export type PingPongBug = (typeof PINGPONG_BUGS)[number];

export interface PingPongConfig {
  /** How many numbered messages the sender sends. */
  messages: number;
  /** Message i is due at `start + (i-1) * interval` after the epoch. */
  intervalMs: number;
  startMs: number;
  /** Per-attempt RPC timeout of the sender. */
  callTimeoutMs: number;
  /** Pause between attempts after a failed call. */
  retryBackoffMs: number;
  /** The receiver's log on its disk. */
  logPath: string;
  bug: PingPongBug;
  lazyFsyncIntervalMs: number;
}

export function parsePingPongConfig(
  raw: Readonly<Record<string, unknown>>,
  where: string,
): PingPongConfig {
  const o = readObject(raw, where, [
    'messages',
    'interval',
    'start',
    'call_timeout',
    'retry_backoff',
    'log_path',
    'bug',
    'lazy_fsync_interval',
  ]);
  const bug = readString(o.bug, `${where}.bug`, 'none');
  if (!(PINGPONG_BUGS as readonly string[]).includes(bug)) {
    throw new ScenarioError(
      `${where}.bug: unknown bug ${JSON.stringify(bug)} (known: ${PINGPONG_BUGS.join(', ')})`,
    );
  }
  const logPath = readString(o.log_path, `${where}.log_path`, '/data/pingpong.log');
  if (!logPath.startsWith('/') || logPath.endsWith('/') || logPath.split('/').length < 3) {
    throw new ScenarioError(
      `${where}.log_path: need an absolute file path inside a directory, got ${JSON.stringify(logPath)}`,
    );
  }
  const intervalMs = readDuration(o.interval, `${where}.interval`, 250);
  if (intervalMs <= 0)
    throw new ScenarioError(`${where}.interval: must be positive, got ${intervalMs}ms`);
  return {
    messages: readNumber(o.messages, `${where}.messages`, 400, { min: 1, integer: true }),
    intervalMs,
    startMs: readDuration(o.start, `${where}.start`, 1_000),
    callTimeoutMs: readDuration(o.call_timeout, `${where}.call_timeout`, 1_000),
    retryBackoffMs: readDuration(o.retry_backoff, `${where}.retry_backoff`, 200),
    logPath,
    bug: bug as PingPongBug,
    lazyFsyncIntervalMs: readDuration(o.lazy_fsync_interval, `${where}.lazy_fsync_interval`, 1_000),
  };
}

export function describePingPong(c: PingPongConfig): string[] {
  const lastSend = c.startMs + (c.messages - 1) * c.intervalMs;
  return [
    `pingpong: ${c.messages} messages sender -> receiver, one every ${formatDuration(c.intervalMs)} from +${formatDuration(c.startMs)} to +${formatDuration(lastSend)}`,
    `  sender: call timeout ${formatDuration(c.callTimeoutMs)}, retry backoff ${formatDuration(c.retryBackoffMs)}`,
    `  receiver: appends each new id to ${c.logPath}, fsyncs, then acks` +
      (c.bug === 'none' ? '' : `  [DELIBERATE BUG: ${c.bug}]`),
  ];
}
