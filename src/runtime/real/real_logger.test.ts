import { describe, expect, it } from 'vitest';
import { createRealLogger } from './real_logger.js';

function capture(): {
  lines: () => Record<string, unknown>[];
  destination: { write(s: string): boolean };
} {
  const out: string[] = [];
  return {
    destination: {
      write(s: string) {
        out.push(s);
        return true;
      },
    },
    lines: () =>
      out
        .join('')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

describe('createRealLogger', () => {
  it('writes JSON lines with level label, time, message and fields', () => {
    const c = capture();
    const logger = createRealLogger({ level: 'info', destination: c.destination });
    logger.info('ring updated', { tokens: 128, ring: 'ingester' });
    const [line] = c.lines();
    expect(line).toMatchObject({
      level: 'info',
      msg: 'ring updated',
      tokens: 128,
      ring: 'ingester',
    });
    expect(typeof line?.['time']).toBe('number');
  });

  it('drops lines below the level', () => {
    const c = capture();
    const logger = createRealLogger({ level: 'warn', destination: c.destination });
    logger.debug('d');
    logger.info('i');
    logger.warn('w');
    logger.error('e');
    expect(c.lines().map((l) => l['msg'])).toEqual(['w', 'e']);
    expect(c.lines().map((l) => l['level'])).toEqual(['warn', 'error']);
  });

  it('merges child bindings, nested children and call fields', () => {
    const c = capture();
    const logger = createRealLogger({ level: 'debug', destination: c.destination });
    logger.child({ module: 'ingester' }).child({ tenant: 't1' }).debug('appended', { samples: 3 });
    expect(c.lines()[0]).toMatchObject({
      module: 'ingester',
      tenant: 't1',
      samples: 3,
      msg: 'appended',
      level: 'debug',
    });
  });
});
