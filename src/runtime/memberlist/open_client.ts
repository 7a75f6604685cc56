import type { KV, KVSpec } from '../kv.js';

/**
 * A client of the process's memberlist KV, for the KV providers (real and simulated alike):
 * the spec carries the process's one `MemberlistKV`, which the app creates and starts
 * (Cortex's memberlist KV init service), and the codec of the values under `prefix`.
 */
export function openMemberlistClient(
  spec: Extract<KVSpec, { store: 'memberlist' }>,
  prefix: string,
): KV {
  if (spec.memberlistKV === undefined) {
    throw new Error(
      'kv store "memberlist": this process has no memberlist KV (configure the `memberlist` ' +
        'block; the app creates one per process and passes it in the spec)',
    );
  }
  return spec.memberlistKV().openClient(prefix, spec.codec);
}
