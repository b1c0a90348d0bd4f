// Time and number formatting for people.

/** A countdown: "2 g 03:04:05" ("2 d 03:04:05" in English) / "03:04:05" / "04:05", never negative. */
export function countdown(seconds: number, lang: 'tr' | 'en' = 'tr'): string {
  const s = Math.max(0, Math.floor(seconds));
  const d = Math.floor(s / 86400);
  const hh = Math.floor((s % 86400) / 3600);
  const mm = Math.floor((s % 3600) / 60);
  const ss = s % 60;
  const two = (n: number) => String(n).padStart(2, '0');
  const clock = hh > 0 || d > 0 ? `${two(hh)}:${two(mm)}:${two(ss)}` : `${two(mm)}:${two(ss)}`;
  return d > 0 ? `${d} ${lang === 'tr' ? 'g' : 'd'} ${clock}` : clock;
}

/** The countdown turns red in the last quarter of the time between two locks. */
export function lastQuarter(secondsLeft: number, periodSeconds: number): boolean {
  return periodSeconds > 0 && secondsLeft >= 0 && secondsLeft <= periodSeconds / 4;
}

/** Seconds left to `at` from `now`, both instants. */
export function secondsTo(at: string, now: number): number {
  return Math.max(0, Math.ceil((Date.parse(at) - now) / 1000));
}

/** An instant in the player's zone and in Istanbul's (the calendar's, +03:00). */
export function bothTimes(at: string, lang: 'tr' | 'en'): { local: string; istanbul: string } {
  const when = new Date(at);
  const opts: Intl.DateTimeFormatOptions = { dateStyle: 'medium', timeStyle: 'short' };
  const locale = lang === 'tr' ? 'tr-TR' : 'en-GB';
  return {
    local: new Intl.DateTimeFormat(locale, opts).format(when),
    istanbul: new Intl.DateTimeFormat(locale, { ...opts, timeZone: 'Europe/Istanbul' }).format(when),
  };
}

/** An instant to the second in Istanbul's time (the calendar's, +03:00), for the console's
 * records: "7 Ara 2026 18:21:05" / "7 Dec 2026, 18:21:05". A text that is no instant stays as
 * it is (never "Invalid Date" nor a thrown RangeError). */
export function istanbulSeconds(at: string, lang: 'tr' | 'en'): string {
  const when = new Date(at);
  if (Number.isNaN(when.getTime())) return at;
  const locale = lang === 'tr' ? 'tr-TR' : 'en-GB';
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'medium', timeZone: 'Europe/Istanbul' }).format(when);
}

// Right-to-left letters: Hebrew, Arabic, Syriac, Thaana, N'Ko, Samaritan, Mandaic and their
// presentation forms, and the right-to-left scripts beyond the BMP
const RTL = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFC\u{10800}-\u{10FFF}\u{1E800}-\u{1EFFF}]/u;

/** A name a player chose (R-15.5: letters of any script), isolated for the Unicode bidi
 * algorithm (FSI … PDI, as <bdi> would) when it holds right-to-left letters. Unisolated, a name
 * in Arabic inside a line took the next seat's number into its run: "(4. bey: علی · 6. bey: …)"
 * showed as "(4. bey: 6 · علی. bey: …)". A name without such letters is left as it is. */
export function isolated(name: string): string {
  return RTL.test(name) ? `\u2068${name}\u2069` : name;
}
