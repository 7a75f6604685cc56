/**
 * Stand-ins for the components that later issues build. A placeholder runs nothing and serves
 * no endpoint; it exists so `-target` accepts every component of the reference, the process
 * starts, and `/services` says plainly which components are not implemented yet and which
 * issue brings them.
 */
import type { Logger } from '../runtime/index.js';
import { BasicService, type Service } from '../services/index.js';

/** Which issue brings each component. */
export const COMPONENT_ISSUES: Readonly<Record<string, string>> = {
  'store-gateway': 'a later issue',
  compactor: 'a later issue',
  ruler: 'a later issue',
  alertmanager: 'a later issue',
  purger: 'a later issue',
  configs: 'a later issue',
};

export function placeholderNote(component: string): string {
  const issue = COMPONENT_ISSUES[component] ?? 'a later issue';
  return `placeholder: ${component} is not implemented yet (arrives with ${issue}); it runs nothing and serves no endpoints`;
}

export function placeholderService(component: string, logger: Logger): Service {
  const note = placeholderNote(component);
  return new BasicService(
    component,
    {
      starting: () => {
        logger.warn('component is a placeholder: not implemented yet', { note });
        return Promise.resolve();
      },
    },
    note,
  );
}
