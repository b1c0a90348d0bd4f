// A live season's press mode (issue 24, R-15): who may chat. Trial seasons have none, so the
// season screen says nothing of it there.

import { bothTimes } from './format';

export type Press = 'full' | 'public' | 'none';

export const PRESS_MODES: readonly Press[] = ['full', 'public', 'none'];

/** The i18n key naming a season's press mode, or null where it is not shown (a trial season). */
export function pressKey(mode: string | undefined, press: string | undefined): 'pressFull' | 'pressPublic' | 'pressNone' | null {
  if (mode !== 'live') return null;
  if (press === 'full') return 'pressFull';
  if (press === 'public') return 'pressPublic';
  if (press === 'none') return 'pressNone';
  return null;
}

/** The body of `POST /v1/seasons` for a live season created from home: the creator's memleket,
 * the registration's close (a `datetime-local` value, read in the device's time zone), the
 * press mode, and the creator's name when given. Null when the close cannot be read. */
export function liveBody(
  memleket: number,
  closesLocal: string,
  press: Press,
  name: string | null,
): { mode: 'live'; memleket: number; registration_closes_at: string; press: Press; name?: string } | null {
  const at = new Date(closesLocal);
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(closesLocal) || Number.isNaN(at.getTime())) return null;
  return { mode: 'live', memleket, registration_closes_at: at.toISOString(), press, ...(name ? { name } : {}) };
}

/** A `datetime-local` value (the device's time) `hours` after `now`, to the minute. */
export function localInput(now: Date, hours: number): string {
  const d = new Date(now.getTime() + hours * 3600_000);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
}

/** The close chosen in the `datetime-local` field (the device's time), said beside it in the
 * player's locale and in Istanbul's time (the calendar's: ), so the player never reads an
 * ISO instant; null while the field cannot be read. */
export function closeWords(closesLocal: string, lang: 'tr' | 'en'): string | null {
  const body = liveBody(1, closesLocal, 'full', null);
  if (!body) return null;
  const { local, istanbul } = bothTimes(body.registration_closes_at, lang);
  return lang === 'tr' ? `Senin saatinle: ${local} · İstanbul: ${istanbul}` : `Your time: ${local} · Istanbul: ${istanbul}`;
}
