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
  it('finds each seat once, in inflected Turkish too ("3. beyin")', () => {
    const named = (n: number) => (n === 2 ? 'Bora' : n === 12 ? 'Cem' : n === 3 ? 'Ayşe' : null);
    expect(said(namedLine("Divan 1: 3. beyin saldırmazlık antlaşması teklifini kabul ettiniz (2. Divan'a dek)", named, seatTr))).toBe(
      "Divan 1: 3. beyin saldırmazlık antlaşması teklifini kabul ettiniz (2. Divan'a dek) (3. bey: Ayşe)",
    );
    expect(said(namedLine('İhanet! 12. bey, 2. beyin Kırıkkale iline saldırdı; 2. bey direndi', named, seatTr))).toBe(
      'İhanet! 12. bey, 2. beyin Kırıkkale iline saldırdı; 2. bey direndi (2. bey: Bora · 12. bey: Cem)',
    );
    expect(said(namedLine('Divan 3 was held', named, seatEn))).toBe('Divan 3 was held');
  });
  it('names the missions a line names by id after its beys, each once', () => {
    const named = (n: number) => (n === 2 ? 'Bora' : null);
    const mission = (id: string) => (id === 'M-6' ? 'Memleketini sezon boyunca kaybetme' : null);
    expect(said(namedLine('2. bey görevini tamamladı: M-6', named, seatTr, mission))).toBe(
      '2. bey görevini tamamladı: M-6 (2. bey: Bora · M-6: Memleketini sezon boyunca kaybetme)',
    );
    expect(said(namedLine('Bey 4 completed mission M-16', named, seatEn, mission))).toBe('Bey 4 completed mission M-16');
    expect(said(namedLine('M-6, M-6 and M-60', named, seatEn, mission))).toBe('M-6, M-6 and M-60 (M-6: Memleketini sezon boyunca kaybetme)');
  });
});
