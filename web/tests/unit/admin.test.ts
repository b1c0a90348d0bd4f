import { describe, expect, it } from 'vitest';
import { adminActs, adminBody } from '../../src/logic/admin';

const live = { mode: 'live', phase: 'registration', divan: 0, paused: false, cancelled: false };

describe("the season admin's acts offered (docs/api.md, admin endpoints)", () => {
  it('follows the phase: postpone and cancel in registration, pause or resume once running', () => {
    expect(adminActs(live)).toEqual(['postpone', 'cancel']);
    expect(adminActs({ ...live, phase: 'running' })).toEqual(['pause', 'cancel']); // before Divan 1
    expect(adminActs({ ...live, phase: 'running', divan: 3 })).toEqual(['pause']);
    expect(adminActs({ ...live, phase: 'running', divan: 3, paused: true })).toEqual(['resume']);
  });
  it('offers nothing to a cancelled, finished or trial season, or before the status is read', () => {
    expect(adminActs({ ...live, cancelled: true })).toEqual([]);
    expect(adminActs({ ...live, phase: 'kurultay', divan: 16 })).toEqual([]);
    expect(adminActs({ ...live, phase: 'over', divan: 16 })).toEqual([]);
    expect(adminActs({ ...live, mode: 'trial', phase: 'running' })).toEqual([]);
    expect(adminActs(null)).toEqual([]);
  });
});

describe("an act's body", () => {
  it('carries the reason, trimmed, and nothing without one', () => {
    expect(adminBody('pause', '  tatil  ')).toEqual({ reason: 'tatil' });
    expect(adminBody('cancel', '   ')).toBeNull();
  });
  it("sends a postponement's close as an instant, and nothing for a close it cannot read", () => {
    const local = '2030-01-02T21:00';
    expect(adminBody('postpone', 'bekleyelim', local)).toEqual({ reason: 'bekleyelim', registration_closes_at: new Date(local).toISOString() });
    expect(adminBody('postpone', 'bekleyelim', '')).toBeNull();
    expect(adminBody('postpone', 'bekleyelim', 'yarın')).toBeNull();
  });
});
