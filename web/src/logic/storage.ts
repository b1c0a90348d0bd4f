// Seasons the player is in, remembered on this device only (localStorage; nothing about the
// player is on the server): season id, seat, memleket and the token, the only key to the seat.

export interface Saved {
  season: string;
  seat: number;
  memleket: number;
  token: string;
  mode: 'trial' | 'live';
  saved: number; // ms since the epoch, for ordering
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
    typeof o.saved === 'number'
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
