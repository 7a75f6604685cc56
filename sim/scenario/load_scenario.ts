import { ScenarioError } from '../fields/index.js';
import {
  builtinScenarioPath,
  hostFileExists,
  listBuiltinScenarios,
  readHostTextFile,
} from '../kernel/index.js';
import { parseScenario } from './parse_scenario.js';
import type { Scenario } from './scenario_types.js';

/**
 * Loads a scenario from YAML text (anything containing a newline), a file path, or the name
 * of a built-in scenario (`scenarios/<name>.yaml` of this repository, e.g. `pingpong`).
 */
export function loadScenario(textOrPath: string): Promise<Scenario> {
  try {
    if (textOrPath.includes('\n')) return Promise.resolve(parseScenario(textOrPath, 'inline'));
    if (hostFileExists(textOrPath))
      return Promise.resolve(parseScenario(readHostTextFile(textOrPath), textOrPath));
    const builtin = builtinScenarioPath(textOrPath);
    if (builtin !== undefined)
      return Promise.resolve(
        parseScenario(readHostTextFile(builtin), textOrPath, `scenarios/${textOrPath}.yaml`),
      );
    const names = listBuiltinScenarios();
    throw new ScenarioError(
      `no scenario file or built-in scenario named ${JSON.stringify(textOrPath)} (built-ins: ${names.length === 0 ? 'none found' : names.join(', ')})`,
    );
  } catch (err) {
    return Promise.reject(err instanceof Error ? err : new Error(String(err)));
  }
}
