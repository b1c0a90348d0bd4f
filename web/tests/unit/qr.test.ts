// The token's QR code (logic/qr.ts): a real QR symbol of the right version for a token, with
// its three finder patterns and the quiet zone, drawn as one path of rectangles inside it.
import { describe, expect, it } from 'vitest';
import { QUIET, qrPath } from '../../src/logic/qr';

const TOKEN = `sb1.${'0123456789abcdef'.repeat(2)}.${'Zz9_-'.repeat(9)}`;

function finderAt(dark: (r: number, c: number) => boolean, r0: number, c0: number): boolean {
  for (let r = 0; r < 7; r++)
    for (let c = 0; c < 7; c++) {
      const ring = r === 0 || r === 6 || c === 0 || c === 6;
      const core = r >= 2 && r <= 4 && c >= 2 && c <= 4;
      if (dark(r0 + r, c0 + c) !== (ring || core)) return false;
    }
  return true;
}

describe('the token as a QR code', () => {
  it('is a QR symbol: version size, three finder patterns, a quiet zone', () => {
    const qr = qrPath(TOKEN);
    expect((qr.modules - 17) % 4).toBe(0);
    expect(qr.modules).toBeGreaterThanOrEqual(21);
    expect(qr.size).toBe(qr.modules + 2 * QUIET);
    const n = qr.modules;
    expect(finderAt(qr.dark, 0, 0)).toBe(true);
    expect(finderAt(qr.dark, 0, n - 7)).toBe(true);
    expect(finderAt(qr.dark, n - 7, 0)).toBe(true);
    expect(finderAt(qr.dark, n - 7, n - 7)).toBe(false);
  });

  it('draws every dark module and nothing else, inside the quiet zone', () => {
    const qr = qrPath(TOKEN);
    const drawn = new Set<string>();
    for (const m of qr.d.matchAll(/M(\d+) (\d+)h(\d+)v1h-(\d+)z/g)) {
      const [x, y, w, back] = m.slice(1).map(Number) as [number, number, number, number];
      expect(back).toBe(w);
      for (let i = 0; i < w; i++) drawn.add(`${y - QUIET},${x + i - QUIET}`);
    }
    expect(qr.d.replace(/M\d+ \d+h\d+v1h-\d+z/g, '')).toBe('');
    for (let r = 0; r < qr.modules; r++)
      for (let c = 0; c < qr.modules; c++) expect(drawn.has(`${r},${c}`)).toBe(qr.dark(r, c));
    expect(drawn.size).toBeGreaterThan(0);
  });

  it('is the same for the same token and differs for another', () => {
    expect(qrPath(TOKEN).d).toBe(qrPath(TOKEN).d);
    expect(qrPath(`${TOKEN}x`).d).not.toBe(qrPath(TOKEN).d);
  });
});
