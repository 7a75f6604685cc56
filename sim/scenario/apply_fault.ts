import type { SimCluster } from '../cluster/index.js';
import { OBJECT_STORE_SERVICE, type SimServices, type UploadListener } from '../runtime/index.js';
import { applyMemcachedFault } from './memcached_faults.js';
import type { FaultAction } from './scenario_types.js';

/** Applies one fault to the cluster and its shared services (inside a kernel event). */
export function applyFault(action: FaultAction, cluster: SimCluster, services: SimServices): void {
  const network = services.network;
  switch (action.kind) {
    case 'partition':
      network.partition(action.groups, action.id);
      return;
    case 'partition_one_way':
      network.partitionOneWay(action.from, action.to, action.id);
      return;
    case 'heal_partition':
      network.healPartition(action.id);
      return;
    case 'heal':
      network.heal();
      services.health.healAll();
      services.throttleObjectStores(undefined);
      network.setConfig(services.config.network);
      return;
    case 'crash':
      cluster.crash(action.node);
      return;
    case 'power_loss':
      cluster.powerLoss(action.node);
      return;
    case 'restart':
      cluster.restart(action.node);
      return;
    case 'stop':
      void cluster.stop(action.node);
      return;
    case 'start':
      if (cluster.node(action.node).state === 'down') cluster.start(action.node);
      return;
    case 'latency_spike':
      network.setLatencyMultiplier(action.multiplier);
      return;
    case 'clock_skew':
      cluster.setSkew(action.node, action.skewMs);
      return;
    case 'cache_wipe':
      services.wipeCaches();
      return;
    case 'service_down':
      services.health.setDown(action.service, true);
      return;
    case 'service_up':
      services.health.setDown(action.service, false);
      return;
    case 'objstore_errors':
      services.health.setErrorRate(OBJECT_STORE_SERVICE, action.rate > 0 ? action.rate : undefined);
      return;
    case 'objstore_throttle':
      services.throttleObjectStores(action.limit);
      return;
    case 'message_loss':
      network.setConfig({
        ...services.config.network,
        loss: action.rate ?? services.config.network.loss,
      });
      return;
    case 'crash_mid_block_upload':
      armCrashMidBlockUpload(action.nodes, action.nth, cluster, services);
      return;
    case 'memcached_down':
    case 'memcached_up':
    case 'memcached_slow':
    case 'memcached_wrong_values':
    case 'memcached_dns':
      applyMemcachedFault(action, services);
      return;
  }
}

/** `<tenant>/<block>/index`: uploaded after a block's chunks and before its meta.json. */
const BLOCK_INDEX = /^[^/]+\/[0-9A-HJKMNP-TV-Z]{26}\/index$/;

/**
 * Counts the uploads of block indexes by `nodes` in every object store; at the `nth` the
 * uploader crashes (in a kernel event of its own, right after the store applied the upload,
 * so the node never hears the answer and never uploads the meta.json).
 */
function armCrashMidBlockUpload(
  nodes: readonly string[],
  nth: number,
  cluster: SimCluster,
  services: SimServices,
): void {
  let seen = 0;
  const offs: (() => void)[] = [];
  const listener: UploadListener = (e) => {
    const node = e.by;
    if (node === undefined || !nodes.includes(node) || !BLOCK_INDEX.test(e.name)) return;
    if (++seen < nth) return;
    for (const off of offs) off();
    services.kernel.at(
      services.kernel.now(),
      { kind: 'fault.crash_mid_block_upload.fired', detail: `${node} after uploading ${e.name}` },
      () => cluster.crash(node),
    );
  };
  // Stores are created when a node first opens them; the blocks bucket exists by now.
  for (const store of services.allObjectStores()) offs.push(store.onUpload(listener));
}
