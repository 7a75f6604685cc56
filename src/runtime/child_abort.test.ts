import { describe, expect, it } from 'vitest';
import { ChildAbort } from './child_abort.js';

describe('ChildAbort', () => {
  it("aborts with its parent's reason, or with its own when told to", () => {
    const parent = new AbortController();
    const child = new ChildAbort(parent.signal);
    expect(child.signal.aborted).toBe(false);
    const reason = new Error('caller gone');
    parent.abort(reason);
    expect(child.signal.reason).toBe(reason);

    const own = new ChildAbort(new AbortController().signal);
    let made = 0;
    const decided = (): Error => {
      made++;
      return new Error('decided');
    };
    own.abort(decided);
    own.abort(decided);
    expect((own.signal.reason as Error).message).toBe('decided');
    expect(made).toBe(1);
  });

  it('starts aborted under an aborted parent, and works without one', () => {
    const parent = new AbortController();
    parent.abort('early');
    expect(new ChildAbort(parent.signal).signal.reason).toBe('early');
    const orphan = new ChildAbort();
    orphan.abort(() => new Error('x'));
    expect(orphan.signal.aborted).toBe(true);
  });

  it('no longer follows its parent once released', () => {
    const parent = new AbortController();
    const child = new ChildAbort(parent.signal);
    child.release();
    parent.abort();
    expect(child.signal.aborted).toBe(false);
  });
});
