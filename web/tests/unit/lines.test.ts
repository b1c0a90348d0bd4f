// A report line names seats ("3. bey" / "Bey 3"); the player reads the chosen names beside them
// (docs/web.md "Names"), each bey named once.
import { describe, expect, it } from 'vitest';
import { namedLine } from '../../src/logic/lines';

const seatTr = (n: number) => `${n}. bey`;
const seatEn = (n: number) => `Bey ${n}`;
const names: Record<number, string> = { 3: 'Ayşe', 5: 'Mehmet' };
const nameOf = (n: number) => names[n] ?? null;
const said = (parts: { text: string }[]) => parts.map((p) => p.text).join('');

describe('a report line with the names of the beys it names', () => {
  it('names the bey of a news line once, in its own parentheses (both languages)', () => {
    const tr = namedLine('Haber: Seyyah tüccar (3. bey)', nameOf, seatTr);
    expect(said(tr)).toBe('Haber: Seyyah tüccar (3. bey: Ayşe)');
    const en = namedLine('News: Travelling merchant (Bey 3)', nameOf, seatEn);
    expect(said(en)).toBe('News: Travelling merchant (Bey 3: Ayşe)');
    // the name is its own part (drawn apart, as text)
    expect(tr.filter((p) => p.name).map((p) => p.text)).toEqual([': Ayşe']);
  });
  it('lists the names of seats named in the running text after the line, each once', () => {
    const line = namedLine('İhanet! 5. bey, 3. beyin Ankara iline saldırdı; 5. bey Hain', nameOf, seatTr);
    expect(said(line)).toBe('İhanet! 5. bey, 3. beyin Ankara iline saldırdı; 5. bey Hain (3. bey: Ayşe · 5. bey: Mehmet)');
  });
  it('adds nothing for a seat without a chosen name', () => {
    expect(said(namedLine('Haber: Seyyah tüccar (7. bey)', nameOf, seatTr))).toBe('Haber: Seyyah tüccar (7. bey)');
    expect(said(namedLine('Bey 7 took Konya', nameOf, seatEn))).toBe('Bey 7 took Konya');
  });
});
