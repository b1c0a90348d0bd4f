import { describe, expect, it } from 'vitest';
import { keyLink, keysFromHash, parseKeys } from '../../src/logic/keys';

const SEASON = '0123456789abcdef0123456789abcdef';
const SECRET = 'Abc_def-0123456789abcdefghijklmn';
const bey = (seat: number | string, season = SEASON) => `sb1.${season}.${seat}.${SECRET}`;
const admin = (season = SEASON) => `sba1.${season}.${SECRET}`;

describe('parseKeys (keys from another device)', () => {
  it('reads a season key: its season and seat', () => {
    expect(parseKeys(`  ${bey(7)}\n`)).toEqual({ bey: [{ season: SEASON, seat: 7, token: bey(7) }], admin: [] });
  });

  it('reads a season key and an admin key pasted together, each once', () => {
    const keys = parseKeys(`${bey(19)} ${admin()}\n${bey(19)}`);
    expect(keys?.bey.map((k) => k.seat)).toEqual([19]);
    expect(keys?.admin).toEqual([{ season: SEASON, token: admin() }]);
  });

  it.each([
    ['nothing', '   '],
    ['a seat out of range', bey(20)],
    ['seat 0', bey(0)],
    ['a seat with a leading zero', bey('07')],
    ['a short secret', `sb1.${SEASON}.3.short`],
    ['an upper-case season', bey(3, SEASON.toUpperCase())],
    ['a season link, not a key', `https://example.org/#/s/${SEASON}`],
    ['a key and a stray word', `${bey(3)} please`],
    ['an ops token shape', `sbo1.${SEASON}.${SECRET}`],
  ])('refuses %s', (_what, text) => {
    expect(parseKeys(text)).toBeNull();
  });
});

describe('keyLink and keysFromHash (the QR code opens the seat)', () => {
  it('puts the key in the fragment of the app address, which reads it back', () => {
    const link = keyLink('https://seksenbir.example/#/s/abc', bey(4));
    expect(link).toBe(`https://seksenbir.example/#/k/${bey(4)}`);
    expect(keysFromHash(new URL(link).hash)?.bey).toEqual([{ season: SEASON, seat: 4, token: bey(4) }]);
  });

  it('reads no key from another route, a bad escape or a forged shape', () => {
    expect(keysFromHash(`#/s/${SEASON}`)).toBeNull();
    expect(keysFromHash('#/k/%E0%A4%A')).toBeNull();
    expect(keysFromHash('#/k/sb1.nope')).toBeNull();
    expect(keysFromHash('#/k/')).toBeNull();
  });
});
