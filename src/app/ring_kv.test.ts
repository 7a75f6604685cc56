import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../config/index.js';
import { kvSpecFromConfig } from './ring_kv.js';

describe('kvSpecFromConfig', () => {
  const kvstore = () => structuredClone(defaultConfig().ingester.lifecycler.ring.kvstore);

  it('builds an etcd spec from the etcd client block', () => {
    const kv = kvstore();
    kv.store = 'etcd';
    kv.etcd.endpoints = ['127.0.0.1:2379', 'http://127.0.0.1:2380'];
    expect(kvSpecFromConfig(kv, 'ingester.lifecycler.ring.kvstore')).toEqual({
      store: 'etcd',
      endpoints: ['127.0.0.1:2379', 'http://127.0.0.1:2380'],
      dialTimeoutMs: kv.etcd.dial_timeout,
    });
  });

  it('carries the multi block: primary, secondary and the mirroring settings', () => {
    const kv = kvstore();
    kv.store = 'multi';
    kv.multi.primary = 'inmemory';
    kv.multi.secondary = 'etcd';
    kv.multi.mirror_enabled = true;
    kv.multi.mirror_timeout = 1500;
    expect(kvSpecFromConfig(kv, 'b')).toMatchObject({
      store: 'multi',
      primary: { store: 'inmemory' },
      secondary: { store: 'etcd' },
      mirrorEnabled: true,
      mirrorTimeoutMs: 1500,
    });
  });

  it('refuses a multi store nested in a multi store, naming the block', () => {
    const kv = kvstore();
    kv.store = 'multi';
    kv.multi.primary = 'multi';
    kv.multi.secondary = 'inmemory';
    expect(() => kvSpecFromConfig(kv, 'b')).toThrow(
      'b.multi.primary.multi: the primary and secondary stores cannot themselves be multi',
    );
  });
});
