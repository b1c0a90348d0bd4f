// Seasons the player is in, remembered on this device only (localStorage; nothing about the
// player is on the server): season id, seat, memleket and the token, the only key to the seat;
// for a live season opened on this device, also its season-admin token (docs/web.md).

export interface Saved {
  season: string;
  seat: number;
  memleket: number;
  token: string;
  mode: 'trial' | 'live';
  saved: number; // ms since the epoch, for ordering
  admin?: string; // the season-admin token (`sba1.…`), only where the season was opened
}

export interface KeyValue {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

const KEY = 'seksenbir.seasons.v1';

function valid(x: unknown): x is Saved {
  if (typeof x !== 'object' || x === null) return false;
  const o = x as Record<string, unknown>;
  return (
    typeof o.season === 'string' &&
    typeof o.token === 'string' &&
    typeof o.seat === 'number' &&
    typeof o.memleket === 'number' &&
    (o.mode === 'trial' || o.mode === 'live') &&
    typeof o.saved === 'number' &&
    (o.admin === undefined || typeof o.admin === 'string')
  );
}

/** Every saved season, newest first; anything unreadable is left out, never thrown. */
export function loadSeasons(store: KeyValue): Saved[] {
  try {
    const parsed: unknown = JSON.parse(store.getItem(KEY) ?? '[]');
    return Array.isArray(parsed) ? parsed.filter(valid).sort((a, b) => b.saved - a.saved) : [];
  } catch {
    return [];
  }
}

export function saveSeason(store: KeyValue, entry: Saved): Saved[] {
  const all = [entry, ...loadSeasons(store).filter((s) => s.season !== entry.season)];
  store.setItem(KEY, JSON.stringify(all));
  return all;
}

export function forgetSeason(store: KeyValue, season: string): Saved[] {
  const all = loadSeasons(store).filter((s) => s.season !== season);
  store.setItem(KEY, JSON.stringify(all));
  return all;
}

export function findSeason(store: KeyValue, season: string): Saved | null {
  return loadSeasons(store).find((s) => s.season === season) ?? null;
}

/** A season id from what a player pastes: a link (…#/s/ID) or the bare id. */
export function seasonFromLink(text: string): string | null {
  const trimmed = text.trim();
  const m = /#\/s\/([A-Za-z0-9_-]{1,64})\/?$/.exec(trimmed) ?? /^([A-Za-z0-9_-]{1,64})$/.exec(trimmed);
  return m ? (m[1] ?? null) : null;
}

// The player (issue 23, ADR-89): a public id and its key, kept on this device beside the
// seasons' tokens; `kept` once the player was offered to keep the key safe elsewhere.
export interface Player {
  id: string;
  key: string;
  name: string | null;
  kept: boolean;
}

const PLAYER = 'seksenbir.player.v1';

export function loadPlayer(store: KeyValue): Player | null {
  try {
    const o = JSON.parse(store.getItem(PLAYER) ?? 'null') as Record<string, unknown> | null;
    if (o === null || typeof o !== 'object') return null;
    if (typeof o.id !== 'string' || typeof o.key !== 'string' || typeof o.kept !== 'boolean') return null;
    return { id: o.id, key: o.key, name: typeof o.name === 'string' ? o.name : null, kept: o.kept };
  } catch {
    return null;
  }
}

export function savePlayer(store: KeyValue, player: Player): void {
  store.setItem(PLAYER, JSON.stringify(player));
}

export function forgetPlayer(store: KeyValue & { removeItem?(key: string): void }): void {
  if (store.removeItem) store.removeItem(PLAYER);
  else store.setItem(PLAYER, 'null');
}

// Reopening the app (issue 22): the season last opened is kept beside the tokens, so the app
// started again at home goes back to it. Only a season the player is in (saved above) is
// returned to; with exactly one saved, that one. An explicit visit to home in the same tab (the
// header's link, a reload at home) stays home: only the first route of a tab redirects.
const LAST = 'seksenbir.last.v1';

export function rememberOpened(store: KeyValue, season: string): void {
  store.setItem(LAST, season);
}

/** The season to go back to when the app starts at home, or null for home. */
export function reopenTarget(store: KeyValue): string | null {
  const saved = loadSeasons(store);
  const last = store.getItem(LAST);
  if (last && saved.some((s) => s.season === last)) return last;
  return saved.length === 1 ? (saved[0]?.season ?? null) : null;
}

/** Where the app's first route goes: the season from reopenTarget when it starts at home in a
 * tab that has not routed before (`started`), else where it was asked to go (null: stay). */
export function startHash(hash: string, started: boolean, store: KeyValue): string | null {
  if (started || (hash !== '' && hash !== '#' && hash !== '#/')) return null;
  const season = reopenTarget(store);
  return season ? `#/s/${season}` : null;
}
