import { describe, expect, it } from 'vitest';
import { findSeason, forgetPlayer, forgetSeason, loadPlayer, loadSeasons, rememberOpened, reopenTarget, savePlayer, saveSeason, seasonFromLink, startHash, type KeyValue } from '../../src/logic/storage';

function memory(): KeyValue & { data: Map<string, string> } {
  const data = new Map<string, string>();
  return { data, getItem: (k) => data.get(k) ?? null, setItem: (k, v) => void data.set(k, v) };
}

const entry = (season: string, saved: number) => ({ season, seat: 1, memleket: 6, token: `sb1.${season}.1.x`, mode: 'trial' as const, saved });

describe('seasons remembered on this device', () => {
  it('keeps several, newest first, one entry per season', () => {
    const m = memory();
    saveSeason(m, entry('a', 1));
    saveSeason(m, entry('b', 2));
    saveSeason(m, entry('a', 3));
    expect(loadSeasons(m).map((s) => s.season)).toEqual(['a', 'b']);
    expect(findSeason(m, 'b')?.token).toBe('sb1.b.1.x');
    forgetSeason(m, 'a');
    expect(loadSeasons(m).map((s) => s.season)).toEqual(['b']);
  });
  it('never throws on what another version or a person left in storage', () => {
    const m = memory();
    m.setItem('seksenbir.seasons.v1', '{not json');
    expect(loadSeasons(m)).toEqual([]);
    m.setItem('seksenbir.seasons.v1', JSON.stringify([{ season: 1 }, entry('c', 1), null]));
    expect(loadSeasons(m).map((s) => s.season)).toEqual(['c']);
  });
  it("keeps a season's admin token beside its seat token, and a renewal keeps it", () => {
    const m = memory();
    saveSeason(m, { ...entry('d', 1), mode: 'live', admin: 'sba1.d.secret' });
    const kept = findSeason(m, 'd');
    expect(kept?.admin).toBe('sba1.d.secret');
    saveSeason(m, { ...kept!, token: 'sb1.d.1.new' }); // the key card's renewal spreads the entry
    expect(findSeason(m, 'd')).toMatchObject({ token: 'sb1.d.1.new', admin: 'sba1.d.secret' });
    m.setItem('seksenbir.seasons.v1', JSON.stringify([{ ...entry('e', 1), admin: 7 }]));
    expect(loadSeasons(m)).toEqual([]); // an admin field that is not a token: the entry is unreadable
  });
  it('reads a season id from a link or a bare id, and nothing else', () => {
    expect(seasonFromLink('http://127.0.0.1:8081/#/s/abc123')).toBe('abc123');
    expect(seasonFromLink(' abc123 ')).toBe('abc123');
    expect(seasonFromLink('javascript:alert(1)')).toBeNull();
    expect(seasonFromLink('a/b')).toBeNull();
  });
});

describe('the player kept on the device (issue 23, ADR-89)', () => {
  it('keeps the key and whether it was offered, and reads nothing unreadable', () => {
    const store = memory();
    expect(loadPlayer(store)).toBeNull();
    savePlayer(store, { id: 'a'.repeat(32), key: 'sbp1.x', name: null, kept: false });
    expect(loadPlayer(store)).toEqual({ id: 'a'.repeat(32), key: 'sbp1.x', name: null, kept: false });
    savePlayer(store, { id: 'a'.repeat(32), key: 'sbp1.x', name: 'Ayşe', kept: true });
    expect(loadPlayer(store)?.kept).toBe(true);
    forgetPlayer(store);
    expect(loadPlayer(store)).toBeNull();
    store.setItem('seksenbir.player.v1', '{"id": 1}');
    expect(loadPlayer(store)).toBeNull();
    store.setItem('seksenbir.player.v1', '{not json');
    expect(loadPlayer(store)).toBeNull();
  });
});

describe('reopening the app (issue 22)', () => {
  it('goes back to the season last opened, if the player is in it', () => {
    const m = memory();
    saveSeason(m, entry('a', 1));
    saveSeason(m, entry('b', 2));
    expect(reopenTarget(m)).toBeNull(); // two seasons, none opened: home
    rememberOpened(m, 'a');
    expect(reopenTarget(m)).toBe('a');
    rememberOpened(m, 'spectated'); // a season the player is not in is not returned to
    expect(reopenTarget(m)).toBeNull();
    rememberOpened(m, 'b');
    forgetSeason(m, 'b');
    expect(reopenTarget(m)).toBe('a'); // forgotten: the one left
  });
  it('with exactly one saved season goes back to it; with none stays home', () => {
    const m = memory();
    expect(reopenTarget(m)).toBeNull();
    saveSeason(m, entry('only', 1));
    expect(reopenTarget(m)).toBe('only');
  });
  it('redirects only the first route of a tab, and only from home', () => {
    const m = memory();
    saveSeason(m, entry('a', 1));
    expect(startHash('', false, m)).toBe('#/s/a');
    expect(startHash('#/', false, m)).toBe('#/s/a');
    expect(startHash('#/', true, m)).toBeNull(); // an explicit visit to home stays home
    expect(startHash('#/s/other', false, m)).toBeNull();
    expect(startHash('#/console', false, m)).toBeNull();
    expect(startHash('#/', false, memory())).toBeNull();
  });
});
