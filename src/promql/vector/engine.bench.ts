// Micro-benchmark (not a test): range queries over 1,000 series × 1,000 steps on the default
// and the vectorised engine. Run with `npx vitest bench --run src/promql/vector/engine.bench.ts`.
import { bench, describe } from 'vitest';
import { Labels } from '../../model/index.js';
import { Engine } from '../engine/index.js';
import { MemoryStorage } from '../memory_storage.js';
import { VectorEngine } from './index.js';

const SERIES = 1000;
const STEPS = 1000;
const STEP = 15_000;
const START = 600_000;
const END = START + (STEPS - 1) * STEP;

const storage = new MemoryStorage();
for (let i = 0; i < SERIES; i++) {
  const labels = Labels.fromObject({
    __name__: 'http_requests_total',
    job: `job${i % 10}`,
    instance: `i${i}`,
  });
  let v = 0;
  for (let t = 0; t <= END; t += 15_000) {
    v += (i % 7) + ((t / 15_000) % 3);
    storage.add(labels, t, v);
  }
}

const options = { maxSamples: 1e9, timeout: 0 };
const engines = {
  default: new Engine(options, {}),
  thanos: new VectorEngine(options, {}),
};

const QUERIES = [
  'http_requests_total',
  'rate(http_requests_total[5m])',
  'sum by (job) (rate(http_requests_total[5m]))',
  'http_requests_total * 2 > 100',
  'http_requests_total / on (instance) group_left () http_requests_total',
];

for (const q of QUERIES) {
  describe(q, () => {
    for (const [name, engine] of Object.entries(engines)) {
      bench(
        name,
        async () => {
          await engine.rangeQuery(storage, q, START, END, STEP);
        },
        { iterations: 3, warmupIterations: 1, time: 0, warmupTime: 0 },
      );
    }
  });
}
