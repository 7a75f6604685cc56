/**
 * What the HTTP layer knows about the modules running in the process: enough to render
 * `/services` and to answer `/ready`. The lifecycle itself lives in the app module; the
 * server only reads these snapshots.
 */

export interface ModuleStatus {
  readonly name: string;
  /**
   * A service state: New, Starting, Running, Stopping, Terminated or Failed; or
   * `Initialised` for a module that only builds something other modules use (e.g.
   * `overrides`) and has no service to run, which never counts against readiness.
   */
  readonly state: string;
  /** Why the service failed, when `state` is Failed. */
  readonly failureReason?: string | undefined;
  /** Shown on `/services` (e.g. that the module is a placeholder and which issue brings it). */
  readonly note?: string | undefined;
  /** Why a Running service is not ready yet (undefined = ready). */
  readonly notReadyReason?: string | undefined;
}

/** The state shown for a module that was initialised and has no service to run. */
export const INITIALISED_ONLY = 'Initialised';

/** Order in which non-running states are reported, most hopeful first. */
const STATE_REPORT_ORDER: readonly string[] = [
  'New',
  'Starting',
  'Stopping',
  'Terminated',
  'Failed',
];

export type Readiness =
  { readonly ready: true } | { readonly ready: false; readonly message: string };

/**
 * Ready when every service is Running and none reports a reason not to be ready. Otherwise
 * the message follows Cortex's `/ready` body (`Some services are not Running:` then one
 * `State: count` line per state), with the module names added to each line.
 */
export function readiness(statuses: readonly ModuleStatus[]): Readiness {
  const notRunning = new Map<string, string[]>();
  for (const s of statuses) {
    if (s.state === 'Running' || s.state === INITIALISED_ONLY) continue;
    const names = notRunning.get(s.state) ?? [];
    names.push(s.name);
    notRunning.set(s.state, names);
  }
  if (notRunning.size > 0) {
    const states = [...notRunning.keys()].sort(
      (a, b) => stateRank(a) - stateRank(b) || a.localeCompare(b),
    );
    const lines = states.map((st) => {
      const names = notRunning.get(st) ?? [];
      return `${st}: ${names.length} (${names.join(', ')})`;
    });
    return { ready: false, message: `Some services are not Running:\n${lines.join('\n')}\n` };
  }
  const notReady = statuses.filter((s) => s.notReadyReason !== undefined);
  if (notReady.length > 0) {
    const lines = notReady.map((s) => `${s.name}: ${s.notReadyReason ?? ''}`);
    return { ready: false, message: `Some services are not ready:\n${lines.join('\n')}\n` };
  }
  return { ready: true };
}

function stateRank(state: string): number {
  const i = STATE_REPORT_ORDER.indexOf(state);
  return i === -1 ? STATE_REPORT_ORDER.length : i;
}
