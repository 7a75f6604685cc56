/**
 * Bad pushes end to end (issue 5, Acceptance): the single binary (`npm start`'s
 * configuration, auth enabled, small limits) answers each kind of bad remote-write request
 * with the status and message docs/distributor.md and docs/ingester.md document, and the
 * samples a partly rejected request carried in valid series stay queryable. Each case uses
 * its own tenant, so first errors and series limits do not mix; two tenants get their own
 * limits from a runtime config file (an ingestion rate, an out-of-order window).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compress } from 'snappyjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlainSeries } from '../src/distributor/index.js';
import { StrataNode, metricValue } from './cluster/nodes.js';
import { rawSamples, strataApi } from './cluster/query.js';
import { encodeSeries, postPush, pushBody, pushSeries } from './cluster/remote-write.js';
import { ensureBuilt, REPO_ROOT } from './strata-process.js';

const MAX_MSG = 64 * 1024;
const SERIES_LIMIT = 5;
const MAX_LABELS = 6;
const MAX_VALUE_LENGTH = 64;
const REJECT_OLDER_THAN_H = 24;

/** Per-tenant limits of the runtime configuration (Cortex's `overrides` format). */
const RUNTIME_CONFIG = `overrides:
  rate-limited:
    ingestion_rate: 10
    ingestion_burst_size: 10
  ooo:
    out_of_order_time_window: 30m
`;

let strata: StrataNode | undefined;
let confDir: string | undefined;
const node = (): StrataNode => {
  if (strata === undefined) throw new Error('strata did not start');
  return strata;
};

beforeAll(async () => {
  ensureBuilt();
  confDir = await mkdtemp(join(tmpdir(), 'strata-bad-pushes-'));
  await writeFile(join(confDir, 'runtime.yaml'), RUNTIME_CONFIG);
  strata = await StrataNode.start('strata', [
    'serve',
    `-config.file=${join(REPO_ROOT, 'docs/configuration/single-process.yaml')}`,
    `-runtime-config.file=${join(confDir, 'runtime.yaml')}`,
    '-auth.enabled=true',
    `-distributor.max-recv-msg-size=${MAX_MSG}`,
    `-ingester.max-global-series-per-user=${SERIES_LIMIT}`,
    `-validation.max-label-names-per-series=${MAX_LABELS}`,
    `-validation.max-length-label-value=${MAX_VALUE_LENGTH}`,
    '-validation.reject-old-samples=true',
    `-validation.reject-old-samples.max-age=${REJECT_OLDER_THAN_H}h`,
    '-log.level=warn',
  ]);
  await strata.waitReady(30_000);
}, 60_000);

afterAll(async () => {
  await strata?.stop();
  if (confDir !== undefined) await rm(confDir, { recursive: true, force: true });
});

const pushUrl = (): string => `${node().url}/api/v1/push`;

function series(
  name: string,
  labels: Record<string, string>,
  timestamp: number,
  value = 1,
): PlainSeries {
  return {
    labels: [['__name__', name], ...Object.entries(labels)],
    samples: [{ timestamp, value }],
  };
}

/** Every sample of `selector` the tenant can read, keyed by the `case` label. */
function readBack(tenant: string, selector: string, at: number) {
  return rawSamples(strataApi(node().url, tenant), selector, at + 1_000, 3_600_000, 'case');
}

describe('bad remote-write pushes to the single binary', () => {
  it('accepts a valid push on /api/v1/push and on the legacy /api/prom/push', async () => {
    const t = Date.now();
    const tenant = 'good';
    expect(await pushSeries(node().url, [series('good', { case: 'v1' }, t)], tenant)).toEqual({
      status: 200,
      text: '',
    });
    const legacy = await postPush(
      `${node().url}/api/prom/push`,
      pushBody([series('good', { case: 'legacy' }, t)]),
      { tenant },
    );
    expect(legacy).toEqual({ status: 200, text: '' });
    expect([...(await readBack(tenant, 'good', t)).keys()].sort()).toEqual(['legacy', 'v1']);
  });

  it('refuses a push without X-Scope-OrgID (auth enabled) with 401', async () => {
    const r = await postPush(pushUrl(), pushBody([series('m', {}, Date.now())]));
    expect(r.status).toBe(401);
    expect(r.text).toBe('no org id: the X-Scope-OrgID header is required\n');
  });

  it('answers a body that is not snappy with 400 "snappy: corrupt input"', async () => {
    // Announces 10 bytes, then a 3-byte literal with only 2 bytes left.
    const body = Uint8Array.from([0x0a, 0x08, 0x41, 0x42]);
    const r = await postPush(pushUrl(), body, { tenant: 'bad-snappy' });
    expect(r).toEqual({ status: 400, text: 'snappy: corrupt input\n' });
  });

  it('answers snappy-compressed garbage with 400 naming the protobuf problem and its offset', async () => {
    const body = compress(new TextEncoder().encode('this is not a protobuf message'));
    const r = await postPush(pushUrl(), body, { tenant: 'garbage' });
    expect(r.status).toBe(400);
    expect(r.text).toMatch(/^failed to decode remote write request: proto: .+ at offset \d+\n$/);
  });

  it('answers a wrong Content-Type with 415', async () => {
    const r = await postPush(pushUrl(), pushBody([series('m', {}, Date.now())]), {
      tenant: 'content-type',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(r.status).toBe(415);
    expect(r.text).toBe(
      'unsupported Content-Type "application/json": remote write expects application/x-protobuf\n',
    );
  });

  it('answers a body over the size limit with 400, compressed and decompressed', async () => {
    const big = new Uint8Array(MAX_MSG + 100).fill(7);
    const r1 = await postPush(pushUrl(), big, { tenant: 'oversized' });
    expect(r1).toEqual({
      status: 400,
      text: `received message larger than max (${MAX_MSG + 100} vs ${MAX_MSG})\n`,
    });

    // Small on the wire, too large once decompressed (long, repetitive label values).
    const many = Array.from({ length: 1_000 }, (_, i) =>
      series('oversized', { case: String(i), pad: 'x'.repeat(MAX_VALUE_LENGTH) }, Date.now()),
    );
    const raw = encodeSeries(many);
    const body = compress(raw);
    expect(body.length).toBeLessThan(MAX_MSG);
    expect(raw.length).toBeGreaterThan(MAX_MSG);
    const r2 = await postPush(pushUrl(), body, { tenant: 'oversized' });
    expect(r2).toEqual({
      status: 400,
      text: `decompressed message larger than max (${raw.length} vs ${MAX_MSG}; compressed size ${body.length})\n`,
    });
    // Nothing of either was stored.
    expect((await readBack('oversized', 'oversized', Date.now())).size).toBe(0);
  });

  it('rejects invalid labels with 400 and the first problem, and keeps the valid series', async () => {
    const t = Date.now();
    const tenant = 'labels';
    const r = await pushSeries(
      node().url,
      [
        series('labels_ok', { case: 'first' }, t, 1),
        series('bad-metric', { case: 'bad-name' }, t),
        { labels: [['case', 'no-name']], samples: [{ timestamp: t, value: 1 }] },
        series('labels_ok', { case: 'bad-label', 'bad-label': 'x' }, t),
        series('labels_ok', { case: 'long-value', v: 'y'.repeat(MAX_VALUE_LENGTH + 1) }, t),
        series('labels_ok', { case: 'valid-too', extra: 'a' }, t, 3),
        {
          labels: [
            ['__name__', 'labels_ok'],
            ['case', 'unsorted'],
            ['b', '1'],
            ['a', '1'],
          ],
          samples: [{ timestamp: t, value: 1 }],
        },
        series(
          'labels_ok',
          { case: 'too-many', a: '1', b: '2', c: '3', d: '4', e: '5', f: '6' },
          t,
        ),
        series('labels_ok', { case: 'last' }, t, 2),
      ],
      tenant,
    );
    expect(r).toEqual({ status: 400, text: 'sample invalid metric name: "bad-metric"\n' });

    // Each other kind of invalid series on its own gets its own documented message.
    const alone = async (s: PlainSeries): Promise<string> => {
      const a = await pushSeries(node().url, [s], tenant);
      expect(a.status).toBe(400);
      return a.text.trimEnd();
    };
    expect(await alone({ labels: [['case', 'x']], samples: [{ timestamp: t, value: 1 }] })).toBe(
      'sample missing metric name',
    );
    expect(await alone(series('labels_ok', { case: 'x', 'bad-label': 'x' }, t))).toBe(
      'sample invalid label: "bad-label" metric "labels_ok{case=\\"x\\", bad-label=\\"x\\"}"',
    );
    expect(
      await alone(series('labels_ok', { case: 'x', v: 'y'.repeat(MAX_VALUE_LENGTH + 1) }, t)),
    ).toBe(
      `label value too long for metric (actual: ${MAX_VALUE_LENGTH + 1}, limit: ${MAX_VALUE_LENGTH}) metric: "labels_ok{case=\\"x\\", v=\\"${'y'.repeat(MAX_VALUE_LENGTH + 1)}\\"}" label name: "v" label value: "${'y'.repeat(MAX_VALUE_LENGTH + 1)}"`,
    );
    expect(
      await alone({
        labels: [
          ['__name__', 'labels_ok'],
          ['case', 'x'],
          ['case', 'y'],
        ],
        samples: [{ timestamp: t, value: 1 }],
      }),
    ).toBe('duplicate label name: "case" metric "labels_ok{case=\\"x\\", case=\\"y\\"}"');
    expect(
      await alone({
        labels: [
          ['__name__', 'labels_ok'],
          ['case', 'x'],
          ['b', '1'],
        ],
        samples: [{ timestamp: t, value: 1 }],
      }),
    ).toBe('labels not sorted: "b" metric "labels_ok{case=\\"x\\", b=\\"1\\"}"');
    expect(
      await alone(series('labels_ok', { a: '1', b: '2', c: '3', d: '4', e: '5', f: '6' }, t)),
    ).toBe(
      `series has too many labels (actual: ${MAX_LABELS + 1}, limit: ${MAX_LABELS}) series: 'labels_ok{a="1", b="2", c="3", d="4", e="5", f="6"}'`,
    );

    const back = await readBack(tenant, '{__name__=~".+"}', t);
    expect(back).toEqual(
      new Map([
        ['first', [[t, 1]]],
        ['last', [[t, 2]]],
        ['valid-too', [[t, 3]]],
      ]),
    );
  });

  it('rejects samples too far in the future and too old at the distributor, keeping the rest', async () => {
    const t = Date.now();
    const tenant = 'window';
    const future = t + 3_600_000;
    const r = await pushSeries(
      node().url,
      [
        series('window_ok', { case: 'now' }, t, 1),
        series('window_ok', { case: 'future' }, future),
        series('window_ok', { case: 'ancient' }, t - (REJECT_OLDER_THAN_H + 1) * 3_600_000),
      ],
      tenant,
    );
    expect(r).toEqual({
      status: 400,
      text: `timestamp too new: ${future} metric: "window_ok"\n`,
    });
    const ancient = t - (REJECT_OLDER_THAN_H + 1) * 3_600_000;
    const r2 = await pushSeries(
      node().url,
      [series('window_ok', { case: 'ancient' }, ancient)],
      tenant,
    );
    expect(r2).toEqual({
      status: 400,
      text: `timestamp too old: ${ancient} metric: "window_ok"\n`,
    });
    const back = await readBack(tenant, 'window_ok', t);
    expect([...back.keys()]).toEqual(['now']);
  });

  it('rejects samples older than the ingestion window at the ingester, keeping the rest', async () => {
    const t = Date.now();
    const tenant = 'ingestion-window';
    // The head must hold a sample before its window applies.
    expect(
      (await pushSeries(node().url, [series('iw', { case: 'a' }, t - 1)], tenant)).status,
    ).toBe(200);
    const old = t - 3 * 3_600_000;
    const r = await pushSeries(
      node().url,
      [
        series('iw', { case: 'a' }, t, 2),
        series('iw', { case: 'old' }, old),
        series('iw', { case: 'b' }, t, 3),
      ],
      tenant,
    );
    expect(r.status).toBe(400);
    expect(r.text).toMatch(
      new RegExp(
        `^user=${tenant}: err: .*out of bounds.*\\. timestamp=\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z, series=\\{__name__="iw", case="old"\\}\\n$`,
      ),
    );
    // Same series, older than its newest sample: out of order.
    const r2 = await pushSeries(node().url, [series('iw', { case: 'a' }, t - 10)], tenant);
    expect(r2.status).toBe(400);
    expect(r2.text).toMatch(/^user=ingestion-window: err: .*out of order/);

    const back = await readBack(tenant, 'iw', t);
    expect(back).toEqual(
      new Map([
        [
          'a',
          [
            [t - 1, 1],
            [t, 2],
          ],
        ],
        ['b', [[t, 3]]],
      ]),
    );
  });

  it('refuses new series over the per-user series limit with 400, keeping the series under it', async () => {
    const t = Date.now();
    const tenant = 'series-limit';
    const eight = Array.from({ length: 8 }, (_, i) => series('limited', { case: `s${i}` }, t, i));
    const r = await pushSeries(node().url, eight, tenant);
    expect(r).toEqual({
      status: 400,
      text: `user=${tenant}: per-user series limit of ${SERIES_LIMIT} exceeded, please contact administrator to raise it (local limit: 0 global limit: ${SERIES_LIMIT} actual local limit: ${SERIES_LIMIT})\n`,
    });
    // Existing series keep accepting samples.
    const more = Array.from({ length: SERIES_LIMIT }, (_, i) =>
      series('limited', { case: `s${i}` }, t + 1, 100 + i),
    );
    expect(await pushSeries(node().url, more, tenant)).toEqual({ status: 200, text: '' });

    const back = await readBack(tenant, 'limited', t + 1);
    expect([...back.keys()].sort()).toEqual(['s0', 's1', 's2', 's3', 's4']);
    for (let i = 0; i < SERIES_LIMIT; i++) {
      expect(back.get(`s${i}`)).toEqual([
        [t, i],
        [t + 1, 100 + i],
      ]);
    }
    // The limit is per tenant: another tenant still creates series.
    expect((await pushSeries(node().url, eight.slice(0, 3), 'series-limit-other')).status).toBe(
      200,
    );
  });

  it('answers 429 over the ingestion rate a tenant has in the runtime config, other tenants unaffected', async () => {
    const t = Date.now();
    const twenty = Array.from({ length: 20 }, (_, i) => series('rl', { case: `s${i}` }, t));
    const r = await pushSeries(node().url, twenty, 'rate-limited');
    expect(r).toEqual({
      status: 429,
      text: 'ingestion rate limit (10) exceeded while adding 20 samples and 0 metadata\n',
    });
    expect((await pushSeries(node().url, twenty.slice(0, 5), 'rate-limited')).status).toBe(200);
    // The same 20 samples (in 4 series: the per-user series limit applies) for another tenant.
    const fourSeries = Array.from({ length: 4 }, (_, i) => ({
      labels: [
        ['__name__', 'rl'],
        ['case', `s${i}`],
      ] as [string, string][],
      samples: Array.from({ length: 5 }, (_, j) => ({ timestamp: t + j, value: j })),
    }));
    expect(await pushSeries(node().url, fourSeries, 'not-rate-limited')).toEqual({
      status: 200,
      text: '',
    });
    expect((await readBack('rate-limited', 'rl', t)).size).toBe(5);
  });

  it('accepts out-of-order samples within the out-of-order window a tenant has in the runtime config', async () => {
    const t = Date.now();
    const tenant = 'ooo';
    const push = (ts: number, v: number) =>
      pushSeries(node().url, [series('late', { case: 'a' }, ts, v)], tenant);
    expect((await push(t, 1)).status).toBe(200);
    expect((await push(t - 10 * 60_000, 2)).status).toBe(200);
    const tooOld = await push(t - 45 * 60_000, 3);
    expect(tooOld.status).toBe(400);
    expect(tooOld.text).toMatch(/^user=ooo: err: .*too old/);
    // Without the window the same late sample is out of order.
    const r = await pushSeries(node().url, [series('late', { case: 'a' }, t)], 'in-order');
    expect(r.status).toBe(200);
    expect(
      (await pushSeries(node().url, [series('late', { case: 'a' }, t - 10 * 60_000)], 'in-order'))
        .text,
    ).toMatch(/out of order/);
    expect(await readBack(tenant, 'late', t)).toEqual(
      new Map([
        [
          'a',
          [
            [t - 10 * 60_000, 2],
            [t, 1],
          ],
        ],
      ]),
    );
  });

  it('counts every refused sample in cortex_discarded_samples_total by reason and tenant', async () => {
    const text = await (await fetch(`${node().url}/metrics`)).text();
    const discarded = (user: string, reason: string): number | undefined =>
      metricValue(text, 'cortex_discarded_samples_total', { reason, user });
    // One sample per refused series in the cases above.
    const expected: [string, string, number][] = [
      ['labels', 'metric_name_invalid', 1],
      ['labels', 'missing_metric_name', 2],
      ['labels', 'label_invalid', 2],
      ['labels', 'label_value_too_long', 2],
      ['labels', 'duplicate_label_names', 1],
      ['labels', 'labels_not_sorted', 2],
      ['labels', 'max_label_names_per_series', 2],
      ['window', 'too_far_in_future', 1],
      ['window', 'greater_than_max_sample_age', 2],
      ['ingestion-window', 'sample-out-of-bounds', 1],
      ['ingestion-window', 'sample-out-of-order', 1],
      ['series-limit', 'per_user_series_limit', 3],
      ['rate-limited', 'rate_limited', 20],
      ['ooo', 'sample-too-old', 1],
      ['in-order', 'sample-out-of-order', 1],
    ];
    const got = expected.map(([user, reason]) => [user, reason, discarded(user, reason)]);
    expect(got).toEqual(expected);
  });
});
