import { it } from 'vitest';
import { loadScenario, runScenario } from '../scenario/index.js';
it('run', async () => {
  const name = process.env.SCN ?? 'compactor-resharding';
  const seed = Number(process.env.SEED ?? '1');
  const s = await loadScenario(name);
  const r = await runScenario(s, seed, { commit: () => 'x' });
  console.log(`wall ${r.wall_ms} passed ${r.passed}\n${r.details.summary}\n` + r.checks.map((c) => `${c.verdict} ${c.name}: ${c.detail}`).join('\n'));
  console.log(r.details.logTail.filter((l: unknown) => JSON.stringify(l).includes('compactor')).slice(-40).map((l: unknown) => JSON.stringify(l).slice(0, 300)).join('\n'));
}, 600_000);
