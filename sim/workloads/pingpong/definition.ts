import { ScenarioError, readDuration, readObject } from '../../fields/index.js';
import type { WorkloadDefinition } from '../workload.js';
import {
  checkDurability,
  messageEvents,
  checkExactlyOnce,
  checkLiveness,
  checkNoPhantoms,
  parseLog,
} from './checks.js';
import { describePingPong, parsePingPongConfig, type PingPongConfig } from './config.js';
import { AckLedger } from './ledger.js';
import { pingPongReceiver } from './receiver.js';
import { pingPongSender } from './sender.js';

const DEFAULT_LIVENESS_WITHIN_MS = 30_000;

/**
 * The built-in workload that exercises the simulator before any Strata component exists: a
 * sender delivers numbered messages to a receiver that keeps them in a durable log.
 */
export const pingPongWorkload: WorkloadDefinition<PingPongConfig> = {
  kind: 'pingpong',
  roles: ['sender', 'receiver'],
  checks: ['durability', 'exactly_once', 'no_phantoms', 'liveness'],

  parseConfig: parsePingPongConfig,

  validateTopology(nodesByRole, where) {
    for (const role of ['sender', 'receiver']) {
      const nodes = nodesByRole.get(role) ?? [];
      if (nodes.length !== 1) {
        throw new ScenarioError(
          `${where}: pingpong needs exactly one node running ${role}, got ${nodes.length} (${nodes.join(', ')})`,
        );
      }
    }
  },

  describe: describePingPong,

  start(config, ctx) {
    const receiver = ctx.nodesByRole.get('receiver')![0]!;
    const sender = ctx.nodesByRole.get('sender')![0]!;
    const ledger = new AckLedger();
    const now = (): number => ctx.kernel.now();
    const where = `${receiver}:${config.logPath}`;
    const durableLog = () => parseLog(ctx.cluster.node(receiver).disk.readDurable(config.logPath));
    return {
      factoryFor(role) {
        if (role === 'sender')
          return (env) =>
            pingPongSender(env, config, { ledger, receiver, epochMs: ctx.epochMs, now });
        if (role === 'receiver') return (env) => pingPongReceiver(env, config);
        throw new Error(`pingpong has no role ${JSON.stringify(role)} (roles: sender, receiver)`);
      },
      check(spec) {
        switch (spec.name) {
          case 'durability':
            return checkDurability(ledger, durableLog(), where, ctx.epochMs, { sender, receiver });
          case 'exactly_once':
            return checkExactlyOnce(durableLog(), where);
          case 'no_phantoms':
            return checkNoPhantoms(ledger, durableLog(), where);
          case 'liveness': {
            const o = readObject(spec.options, 'checks.liveness', ['within']);
            return checkLiveness(ledger, {
              quietAtMs: ctx.quietAtMs,
              withinMs: readDuration(
                o.within,
                'checks.liveness.within',
                DEFAULT_LIVENESS_WITHIN_MS,
              ),
              endMs: ctx.endMs,
              epochMs: ctx.epochMs,
              expectedMessages: config.messages,
              sender,
            });
          }
          default:
            throw new Error(`pingpong has no check ${JSON.stringify(spec.name)}`);
        }
      },
      timeline() {
        return [...ledger.sentIds.keys()].flatMap((id) => messageEvents(ledger, id, sender));
      },
      summary() {
        return `sent ${ledger.sentIds.size}/${config.messages} ids (${ledger.attempts} attempts), acked ${ledger.ackedIds.size} (${ledger.acks} acks)`;
      },
    };
  },
};
