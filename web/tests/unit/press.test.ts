import { describe, expect, it } from 'vitest';
import { closeWords, liveBody, localInput, PRESS_MODES, pressKey } from '../../src/logic/press';

describe("a live season's press mode (issue 24)", () => {
  it('names each mode of a live season', () => {
    expect(PRESS_MODES.map((p) => pressKey('live', p))).toEqual(['pressFull', 'pressPublic', 'pressNone']);
  });
  it('says nothing for a trial season or an unknown mode', () => {
    expect(pressKey('trial', 'none')).toBeNull();
    expect(pressKey('live', undefined)).toBeNull();
    expect(pressKey('live', 'loud')).toBeNull();
  });
});

describe('the live season form (issue 24)', () => {
  it('sends the press mode chosen, the close as an instant, and the name only when given', () => {
    const at = localInput(new Date(2026, 11, 6, 9, 5), 24);
    expect(at).toBe('2026-12-07T09:05');
    expect(liveBody(34, at, 'public', null)).toEqual({
      mode: 'live',
      memleket: 34,
      registration_closes_at: new Date(2026, 11, 7, 9, 5).toISOString(),
      press: 'public',
    });
    expect(liveBody(6, at, 'full', 'Ayşe')?.name).toBe('Ayşe');
  });
  it('sends nothing when the close cannot be read', () => {
    expect(liveBody(6, '', 'full', null)).toBeNull();
    expect(liveBody(6, 'tomorrow', 'none', null)).toBeNull();
  });
});

describe('the live close said beside its field (the device time, and Istanbul)', () => {
  it("says the chosen close in the player's locale and in Istanbul time, never as ISO", () => {
    const said = closeWords('2026-12-08T21:00', 'tr');
    expect(said).not.toBeNull();
    expect(said).not.toMatch(/\d{4}-\d\d-\d\dT/);
    // the device's time as typed, whatever its zone; Istanbul's beside it
    expect(said).toMatch(/^Senin saatinle: 8 Ara 2026 21:00 · İstanbul: .+$/);
    expect(closeWords('2026-12-08T21:00', 'en')).toMatch(/^Your time: 8 Dec 2026, 21:00 · Istanbul: .+$/);
  });
  it('says nothing for a close it cannot read', () => {
    expect(closeWords('', 'tr')).toBeNull();
    expect(closeWords('yarın', 'en')).toBeNull();
  });
});
