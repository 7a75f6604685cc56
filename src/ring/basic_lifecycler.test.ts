import { describe, expect, it } from 'vitest';
import { DiskFileSystem } from '../../sim/testing/index.js';
import { JSON_RING_CODEC, emptyRingDesc } from './index.js';
import { MemoryKV, MemoryKVStore, createSeededRandom } from '../runtime/index.js';
import { CapturingLogger, ManualClock } from '../runtime/testing/index.js';
import { BasicLifecycler, type BasicLifecyclerConfig } from './basic_lifecycler.js';

const NOW = 1_800_000_000_000;

function setup(over: Partial<BasicLifecyclerConfig> = {}) {
  const clock = new ManualClock(NOW);
  const kv = new MemoryKV({}, { store: new MemoryKVStore() });
  const lc = new BasicLifecycler(
    {
      ringName: 'store-gateway',
      key: 'store-gateway',
      id: 'sg-1',
      addr: 'sg-1:9095',
      zone: '',
      numTokens: 16,
      heartbeatPeriodMs: 15_000,
      autoForgetAfterMs: 600_000,
      tokensFilePath: '',
      ...over,
    },
    {
      kv,
      clock,
      random: createSeededRandom('lc'),
      fs: new DiskFileSystem(),
      logger: new CapturingLogger(),
    },
  );
  const desc = async () => JSON_RING_CODEC.decode(await kv.get('store-gateway'));
  return { clock, kv, lc, desc };
}

describe('BasicLifecycler', () => {
  it('registers JOINING with all its tokens and stays JOINING until told', async () => {
    const { lc, desc, clock } = setup();
    await lc.start(new AbortController().signal);
    await clock.advance(60_000);
    const self = (await desc()).ingesters['sg-1'];
    expect(self?.state).toBe('JOINING');
    expect(self?.tokens).toHaveLength(16);
    await lc.changeState('ACTIVE');
    expect((await desc()).ingesters['sg-1']?.state).toBe('ACTIVE');
    await lc.stop();
  });

  it('keeps the tokens it has in the ring (a restart without a tokens file), filling up to the count', async () => {
    const { lc, kv, desc } = setup();
    await kv.cas('store-gateway', () => {
      const d = emptyRingDesc();
      d.ingesters['sg-1'] = {
        addr: 'old:1',
        timestamp: 1,
        state: 'ACTIVE',
        tokens: [5, 10],
        zone: '',
        registeredTimestamp: 42,
      };
      return JSON_RING_CODEC.encode(d);
    });
    await lc.start(new AbortController().signal);
    const self = (await desc()).ingesters['sg-1'];
    expect(self?.tokens).toHaveLength(16);
    expect(self?.tokens).toEqual(expect.arrayContaining([5, 10]));
    expect(self?.state).toBe('JOINING');
    expect(self?.registeredTimestamp).toBe(42);
    expect(self?.addr).toBe('sg-1:9095');
    await lc.stop();
  });

  it('heartbeats, forgets instances dead for the auto-forget period, and leaves on stop', async () => {
    const { lc, kv, desc, clock } = setup();
    await lc.start(new AbortController().signal);
    await kv.cas('store-gateway', (cur) => {
      const d = JSON_RING_CODEC.decode(cur);
      d.ingesters['dead'] = {
        addr: 'd:1',
        timestamp: NOW / 1000 - 1000,
        state: 'ACTIVE',
        tokens: [1],
        zone: '',
        registeredTimestamp: 1,
      };
      d.ingesters['alive'] = {
        addr: 'a:1',
        timestamp: NOW / 1000,
        state: 'ACTIVE',
        tokens: [2],
        zone: '',
        registeredTimestamp: 1,
      };
      return JSON_RING_CODEC.encode(d);
    });
    await clock.advance(15_000);
    const d = await desc();
    expect(Object.keys(d.ingesters).sort()).toEqual(['alive', 'sg-1']);
    expect(d.ingesters['sg-1']?.timestamp).toBe(NOW / 1000 + 15);
    await lc.stop();
    expect(Object.keys((await desc()).ingesters)).toEqual(['alive']);
  });
});
