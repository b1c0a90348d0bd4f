import { describe, expect, it } from 'vitest';
import { bothTimes, countdown, isolated, istanbulSeconds, lastQuarter, secondsTo } from '../../src/logic/format';
import { idempotencyKey, retryAfterSeconds } from '../../src/api/client';
import { fill } from '../../src/i18n';
import { ownerColour, textOn, UNOWNED } from '../../src/logic/palette';

describe('countdown', () => {
  it('formats minutes, hours and days, never negative', () => {
    expect(countdown(0)).toBe('00:00');
    expect(countdown(65)).toBe('01:05');
    expect(countdown(3 * 3600 + 4 * 60 + 5)).toBe('03:04:05');
    expect(countdown(2 * 86400 + 3661)).toBe('2 g 01:01:01');
    expect(countdown(2 * 86400 + 3661, 'tr')).toBe('2 g 01:01:01');
    expect(countdown(2 * 86400 + 3661, 'en')).toBe('2 d 01:01:01');
    expect(countdown(-5)).toBe('00:00');
  });
  it('is red in the last quarter of the period (a live lock)', () => {
    expect(lastQuarter(25, 100)).toBe(true);
    expect(lastQuarter(26, 100)).toBe(false);
    expect(lastQuarter(0, 100)).toBe(true);
    expect(lastQuarter(10, 0)).toBe(false);
  });
  it('counts seconds to an instant, rounded up', () => {
    const now = Date.parse('2026-12-08T17:59:58.500Z');
    expect(secondsTo('2026-12-08T21:00:00+03:00', now)).toBe(2);
    expect(secondsTo('2026-12-08T20:00:00+03:00', now)).toBe(0);
  });
  it('shows an instant in Istanbul time as well as the local one', () => {
    expect(bothTimes('2026-12-08T21:00:00+03:00', 'en').istanbul).toMatch(/21:00/);
  });
});

describe('the console\'s recorded instants (probe, session 23: raw ISO with microseconds)', () => {
  it('are Istanbul time to the second in either language, whatever offset they were recorded in', () => {
    expect(istanbulSeconds('2026-12-07T15:21:05.123456+00:00', 'en')).toBe('7 Dec 2026, 18:21:05');
    expect(istanbulSeconds('2026-12-07T18:21:05.999999+03:00', 'tr')).toBe('7 Ara 2026 18:21:05');
    expect(istanbulSeconds('2026-12-31T23:59:59Z', 'tr')).toBe('1 Oca 2027 02:59:59');
  });
  it('leave a text that is no instant as it is', () => {
    expect(istanbulSeconds('–', 'en')).toBe('–');
  });
});

describe('a 429 is waited out as Retry-After says, within bounds', () => {
  it('takes seconds or a date, at least 1 and at most 60', () => {
    expect(retryAfterSeconds('7')).toBe(7);
    expect(retryAfterSeconds('0')).toBe(1);
    expect(retryAfterSeconds('3600')).toBe(60);
    expect(retryAfterSeconds(null)).toBe(5);
    expect(retryAfterSeconds('soon')).toBe(5);
    const now = Date.parse('2026-12-05T20:00:00Z');
    expect(retryAfterSeconds('Sat, 05 Dec 2026 20:00:10 GMT', now)).toBe(10);
  });
});

describe('texts and colours', () => {
  it('says a count with its noun, singular after 1 (English: "1 unit", "0 units", "3 units")', () => {
    expect(fill('{u:unit|units} entered', { u: 1 })).toBe('1 unit entered');
    expect(fill('{u:unit|units} entered', { u: 3 })).toBe('3 units entered');
    expect(fill('{n:free seat|free seats}', { n: 0 })).toBe('0 free seats');
    expect(fill('{u} birlik girdi', { u: 1 })).toBe('1 birlik girdi'); // Turkish: no plural after a number
  });
  it('fills named parameters and leaves unknown ones visible', () => {
    expect(fill('{n} / {m} emir', { n: 12, m: 15 })).toBe('12 / 15 emir');
    expect(fill('{x}', {})).toBe('{x}');
  });
  it('gives every one of the 19 seats its own colour, and unowned provinces another', () => {
    const colours = new Set(Array.from({ length: 19 }, (_, i) => ownerColour(i + 1)));
    expect(colours.size).toBe(19);
    expect(colours.has(UNOWNED)).toBe(false);
    expect(ownerColour(null)).toBe(UNOWNED);
  });
  it('writes labels in black or white, whichever has the higher contrast', () => {
    expect(textOn('#332288')).toBe('#FFFFFF');
    expect(textOn('#DDCC77')).toBe('#000000');
  });
});

describe('Idempotency-Key', () => {
  it('is 128 random bits in hex, new for every command', () => {
    const a = idempotencyKey();
    expect(a).toMatch(/^[0-9a-f]{32}$/);
    expect(idempotencyKey()).not.toBe(a);
  });
});

describe('isolated (a chosen name inside a line)', () => {
  it('isolates a name with right-to-left letters, so it never takes in the next seat number', () => {
    // "(4. bey: علی · 6. bey: …)" once showed as "(4. bey: 6 · علی. bey: …)"
    expect(isolated('علی')).toBe('\u2068علی\u2069');
    expect(isolated('שרה 2')).toBe('\u2068שרה 2\u2069');
    expect(isolated('abc محمد 12')).toBe('\u2068abc محمد 12\u2069');
  });
  it('leaves a name without right-to-left letters as it is', () => {
    for (const name of ['Ayşe', 'Konya Beyi', '3. bey', 'Иван', '李雷', "O'Neil-2"]) expect(isolated(name)).toBe(name);
  });
});
