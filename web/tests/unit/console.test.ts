// The console (issue 26): a season found from what ops paste, and its staff token never
// written to storage (kept in the tab's memory only: ui/console.ts).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bySeat, seasonIdOf, seatOf, type SeasonBetrayals } from '../../src/api/console';
import { ApiProblem } from '../../src/api/client';
import { failureText } from '../../src/ui/console_parts';
import { CONSOLE_TEXTS, ctIn } from '../../src/ui/console_text';
import { tIn } from '../../src/i18n';
import { apiWord, whySaid } from '../../src/ui/console_text';
import { setLang } from '../../src/i18n';

const SRC = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');
const ID = '0123456789abcdef0123456789abcdef';

describe('seasonIdOf', () => {
  it('reads an id, a report link or an API URL', () => {
    expect(seasonIdOf(ID)).toBe(ID);
    expect(seasonIdOf(`https://seksenbir.example/#/s/${ID}`)).toBe(ID);
    expect(seasonIdOf(` https://seksenbir.example/v1/seasons/${ID}/reports `)).toBe(ID);
    expect(seasonIdOf('trial-season_1')).toBe('trial-season_1');
    expect(seasonIdOf('no id here, sorry')).toBeNull();
    expect(seasonIdOf('')).toBeNull();
  });
});

describe('the staff token', () => {
  it('is never put in storage by any console module', () => {
    for (const name of ['ui/console.ts', 'ui/console_divan.ts', 'ui/console_parts.ts', 'api/console.ts']) {
      const text = readFileSync(join(SRC, name), 'utf8');
      expect(text).not.toMatch(/localStorage|sessionStorage|indexedDB|document\.cookie/);
    }
  });
});

describe('a player in the auditor\'s betrayal view (seat_bound.v1)', () => {
  const line = (type: string, data: object | null) =>
    JSON.stringify(data === null ? { version: 3, type, redacted: true } : { version: 2, type, data: JSON.stringify(data) });
  const ndjson = [
    JSON.stringify({ export: 'header', redacted: true }),
    line('season_created.v1', null),
    line('seat_bound.v1', { seat: 3, player_id: 'p-other' }),
    line('orders_submitted.v1', null),
    line('seat_bound.v1', { seat: 7, player_id: 'p-mine' }),
  ].join('\n');

  it('finds the seat a player holds from the export, null when it holds none', () => {
    expect(seatOf(ndjson, 'p-mine')).toBe(7);
    expect(seatOf(ndjson, 'p-other')).toBe(3);
    expect(seatOf(ndjson, 'p-absent')).toBeNull();
    expect(seatOf('', 'p-mine')).toBeNull();
  });

  it('keeps the betrayals the seat took part in, as traitor or as victim', () => {
    const b = (traitor: number, victim: number) => ({ divan: 1, traitor: { seat: traitor, memleket: null }, victim: { seat: victim, memleket: null }, province: 6, hain_through: 5 });
    const season = { season_id: 's', version: 9, phase: 'kurultay', full: true, betrayals: [b(7, 2), b(3, 4), b(5, 7)] } as SeasonBetrayals;
    expect(bySeat(season, 7).betrayals.map((x) => [x.traitor.seat, x.victim.seat])).toEqual([
      [7, 2],
      [5, 7],
    ]);
    expect(bySeat(season, 9).betrayals).toEqual([]);
  });
});

describe('a refusal in the console', () => {
  // said in words as home says it (logic/problems.ts), never the raw `code: detail`
  it('names a field in words, never by its JSON path, the code in parentheses', () => {
    const p = new ApiProblem(422, 'invalid_body', 'Expected `int >= 1`, got `0` - at `$.divan`', { field: '$.divan' }, null);
    const text = failureText(p);
    expect(text).not.toMatch(/\$\./);
    expect(text).not.toMatch(/^Olmadı: invalid_body:/);
    expect(text).toBe('Olmadı: Expected `int >= 1`, got `0` - at `Divan` (invalid_body)');
  });
});

describe('a seat in the console (round 1 left it, session 23)', () => {
  // The what-if's holder cells and seat cells said "Bey 3" in Turkish too; the player's client,
  // the reports and the server's catalogue say "3. bey" (English "Bey 3"), and so does the console.
  it('is named as the player client names it, in both languages', () => {
    for (const which of ['tr', 'en'] as const) expect(ctIn('bey', which, { n: 3 })).toBe(tIn('bey', which, { n: 3 }));
    expect(ctIn('bey', 'tr', { n: 3 })).toBe('3. bey');
    expect(ctIn('bey', 'en', { n: 3 })).toBe('Bey 3');
    expect(ctIn('advanceLine', 'tr', { seat: 3, from: 'Ankara (6)', units: 2, ordered: 2, betrayal: '' })).toMatch(/^3\. bey: Ankara \(6\)/);
    expect(ctIn('supportLine', 'tr', { seat: 3, from: 'Ankara (6)', units: 2, kind: 'attack', counted: 'sayıldı', why: 'x' })).toMatch(/^3\. bey: /);
    expect(ctIn('betrayalLine', 'tr', { divan: 2, traitor: 3, tm: 6, victim: 4, vm: 34, province: 'x', through: 5 })).toMatch(/: 3\. bey \(memleket 6\) → 4\. bey \(memleket 34\)/);
  });

  it('is never "Bey n" in a Turkish text, nor spelled out beside the catalogue in the console code', () => {
    const turkish = Object.entries(CONSOLE_TEXTS).filter(([, [tr]]) => /\bBey \{/.test(tr));
    expect(turkish).toEqual([]);
    for (const name of ['ui/console.ts', 'ui/console_divan.ts', 'ui/console_parts.ts']) {
      expect(readFileSync(join(SRC, name), 'utf8')).not.toMatch(/Bey \$\{/);
    }
  });
});

describe('the API\'s words in the console (probe, session 23: "live · registration" in Turkish)', () => {
  it('says a mode, a phase, a treaty, an order and an outcome in the console\'s language', () => {
    const words = ['trial', 'live', 'registration', 'running', 'kurultay', 'over', 'pact', 'alliance', 'advance', 'support', 'hold', 'taken', 'held', 'standoff'];
    // an outcome in the reports' words (the catalogue's, ADR-157/ADR-170): it was "alındı /
    // tutuldu / denge" here and in the player's battle cards, "düştü / direndi / kimse alamadı"
    // in the reports beside them
    expect(words.map(apiWord)).toEqual(['deneme', 'canlı', 'kayıt', 'sürüyor', 'Kurultay', 'bitti', 'saldırmazlık', 'ittifak', 'ilerle', 'destek', 'bekle', 'düştü', 'direndi', 'kimse alamadı']);
    (globalThis as { document?: unknown }).document = { documentElement: {} }; // setLang marks <html lang>
    try {
      setLang('en');
      expect(words.map(apiWord)).toEqual(words.map((w) => (w === 'kurultay' ? 'Kurultay' : w === 'taken' ? 'fell' : w)));
    } finally {
      setLang('tr');
      delete (globalThis as { document?: unknown }).document;
    }
  });
  it('leaves a word it does not know as the API spells it', () => {
    expect(apiWord('something_new')).toBe('something_new');
  });
});

describe('a dropped order\'s reason in the console (probe, session 24: codes only)', () => {
  it('is said in the catalogue\'s words, its code and rule beside them', () => {
    expect(whySaid('not_owned', 'R-4.5')).toBe('il artık o beyin değil (not_owned · R-4.5)');
    expect(whySaid('no_units', 'R-4.2')).toBe('gönderecek birlik yok (en az 1 kalır) (no_units · R-4.2)');
    (globalThis as { document?: unknown }).document = { documentElement: {} };
    try {
      setLang('en');
      expect(whySaid('ally', 'R-6.4')).toBe("an advance into an ally's province is cancelled (ally · R-6.4)");
    } finally {
      setLang('tr');
      delete (globalThis as { document?: unknown }).document;
    }
  });

  it('keeps a reason the catalogue does not hold as its code', () => {
    expect(whySaid('something_new', 'R-9.9')).toBe('something_new · R-9.9');
  });
});

describe('a support\'s why in the console (round 1 left it: "(own_province; R-5.3)", codes only)', () => {
  it('is said in the catalogue\'s words, its code and rules beside them', () => {
    const line = (why: string, rules: string[]) => ctIn('supportLine', 'tr', { seat: 3, from: 'Ankara (6)', units: 2, kind: 'defence', counted: 'sayıldı', why: whySaid(why, rules) });
    expect(line('own_province', ['R-5.3', 'R-5.4'])).toBe('3. bey: Ankara (6) → 2 birlik, defence, sayıldı: kendi ili (own_province · R-5.3, R-5.4)');
    expect(line('ally_attack', ['R-5.3'])).toBe('3. bey: Ankara (6) → 2 birlik, defence, sayıldı: savaşan grupta müttefiki var (ally_attack · R-5.3)');
    expect(line('something_new', [])).toBe('3. bey: Ankara (6) → 2 birlik, defence, sayıldı: something_new');
  });
});
