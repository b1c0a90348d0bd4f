// What a device without the season's key is told (logic/join.ts `visitorNote`), in every state
// the season screen can draw in. Probe (session 24): the first draw, before the status was
// read, said "you can only watch" during a live season's registration, above its join form.
import { describe, expect, it } from 'vitest';
import { visitorNote } from '../../src/logic/join';

const live = (phase: string, cancelled = false) => ({ mode: 'live', phase, cancelled });

describe('a visitor (R-1.4)', () => {
  it('is told nothing before the season is known', () => {
    expect(visitorNote(null, false, false)).toBeNull();
  });

  it('is offered the join during a live registration, never "only watch"', () => {
    expect(visitorNote(live('registration'), false, false)).toBe('join');
  });

  it('may only watch once registration is closed, cancelled, or in a trial', () => {
    for (const phase of ['running', 'kurultay', 'over']) expect(visitorNote(live(phase), false, false)).toBe('watch');
    expect(visitorNote(live('registration', true), false, false)).toBe('watch');
    expect(visitorNote({ mode: 'trial', phase: 'running' }, false, false)).toBe('watch');
  });

  it('a bey, or a device whose key was refused (its own notice), is told neither', () => {
    for (const s of [null, live('registration'), live('running'), { mode: 'trial', phase: 'over' }]) {
      expect(visitorNote(s, true, false)).toBeNull();
      expect(visitorNote(s, false, true)).toBeNull();
    }
  });
});
