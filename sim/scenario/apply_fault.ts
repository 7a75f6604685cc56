import type { SimCluster } from '../cluster/index.js';
import { OBJECT_STORE_SERVICE, type SimServices } from '../runtime/index.js';
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
  }
}
