import { describe, expect, it } from 'vitest';
import { problemMessage } from '../../src/logic/problems';

// what the server answers (docs/api.md "Beys' names", D-27): `detail` in the language asked,
// naming the body's field by its JSON path
const refusal = (code: string, detail: string, members: Record<string, unknown> = {}) => ({ code, detail, members });

describe("a refusal said to the player (home's forms, the join, the admin card)", () => {
  it('says a refused name in words per code, never the JSON path', () => {
    const tooShort = refusal('invalid_name', '$.name: bir ad 2 … 24 karakter olur', { field: '$.name' });
    const tr = problemMessage(tooShort, 'tr');
    expect(tr).not.toContain('$.');
    expect(tr).toBe("Ad: bu ad olmaz: 2–24 harf, rakam, boşluk ya da . - _ ' (en az bir harf; boşlukla başlamaz, bitmez, iki boşluk yan yana gelmez) (invalid_name)");
    const en = problemMessage(refusal('invalid_name', '$.name: a name has 2 … 24 characters', { field: '$.name' }), 'en');
    expect(en).toBe("Name: not a valid name: 2–24 letters, digits, spaces or . - _ ' (at least one letter; no space at either end, never two in a row) (invalid_name)");
    expect(problemMessage(refusal('name_reserved', '$.name: bu ad ayrılmış (…)', { field: '$.name' }), 'tr')).toMatch(/^Ad: bu ad ayrılmış/);
    expect(problemMessage(refusal('name_taken', '$.name: bu sezonda …', { field: '$.name' }), 'en')).toMatch(/^Name: another bey of this season has this name/);
  });
  it("says an unknown code by the server's detail, its JSON paths named in words", () => {
    const missing = refusal('invalid_body', 'Zorunlu alan eksik: $.memleket', { field: '$.memleket' });
    expect(problemMessage(missing, 'tr')).toBe('Zorunlu alan eksik: Memleket (invalid_body)');
    const bounded = refusal('invalid_body', '$.orders[0].units: 0 … 12 arasında bir tamsayı olmalı', { field: '$.orders[0].units' });
    expect(problemMessage(bounded, 'tr')).toBe('Birlik: 0 … 12 arasında bir tamsayı olmalı (invalid_body)');
    const odd = refusal('unknown_field', 'Unknown field: $.extra.thing', { field: '$.extra.thing' });
    expect(problemMessage(odd, 'en')).not.toContain('$');
  });
  it('keeps a refusal without a field as the server says it, with its code', () => {
    expect(problemMessage(refusal('season_full', 'Sezon dolu: 19 koltuk da alındı'), 'tr')).toBe('Sezon dolu: 19 koltuk da alındı (season_full)');
    expect(problemMessage(refusal('not_your_province', 'Ankara senin ilin değil', { province: 6 }), 'tr')).toBe('Ankara senin ilin değil (not_your_province)');
  });
});

describe('a refusal naming an instant (the live close "in your time")', () => {
  // the server names the instant as RFC 3339 with +03:00; the player reads it in its own
  // locale and in Istanbul's time, as the calendar does (logic/format.ts bothTimes)
  const tooSoon = refusal('registration_too_soon', 'Kayıt en erken 2026-12-08T21:00:00+03:00 kapanabilir', { earliest: '2026-12-08T21:00:00+03:00' });
  it('never shows the ISO instant', () => {
    for (const lang of ['tr', 'en'] as const) {
      const said = problemMessage(tooSoon, lang);
      expect(said).not.toMatch(/\d{4}-\d\d-\d\dT/);
      expect(said).toMatch(/21:00/); // Istanbul's time, whatever the device's zone
      expect(said).toContain('(registration_too_soon)');
    }
    expect(problemMessage(tooSoon, 'tr')).toMatch(/^Kayıt en erken .+ \(İstanbul: .+21:00\) kapanabilir \(registration_too_soon\)$/);
    expect(problemMessage(tooSoon, 'en')).toMatch(/^Registration can close at .+ \(Istanbul: .+21:00\) at the earliest \(registration_too_soon\)$/);
  });
  it('says the latest close and a postponement that is not later the same way', () => {
    const far = refusal('invalid_instant', 'Kayıt en geç 2027-01-05T21:00:00+03:00 kapanabilir', { latest: '2027-01-05T21:00:00+03:00' });
    expect(problemMessage(far, 'tr')).not.toMatch(/\d{4}-\d\dT|2027-01-05T/);
    expect(problemMessage(far, 'en')).toMatch(/at the latest/);
    const notLater = refusal('not_later', 'Yeni kapanış 2026-12-08T21:00:00+03:00 sonrasında olmalı', { registration_closes_at: '2026-12-08T21:00:00+03:00' });
    expect(problemMessage(notLater, 'tr')).not.toMatch(/\d{4}-\d\d-\d\dT/);
    expect(problemMessage(notLater, 'en')).toMatch(/later than .+ \(Istanbul: .+21:00\)/);
  });
});
