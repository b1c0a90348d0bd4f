// The news card, titles on the map and a battle in full, from what the
// read side sends.
import { describe, expect, it } from 'vitest';
import type { Battle, Schemas } from '../../src/api/client';
import { battleDetail } from '../../src/logic/battle';
import { deckLeft, newsCard, newsPlates } from '../../src/logic/news';
import { markGlyph, titleMarks, titleName } from '../../src/logic/titles';
import { freeMemleket } from '../../src/logic/join';
import { membersText } from '../../src/logic/problems';
import { offerOutcomes } from '../../src/logic/offers';

type Line = Schemas['ReportLine'];
const line = (kind: string, data: Line['data'], tr = kind): Line => ({ kind, data, tr, en: tr, text: tr });
const deck: Schemas['NewsInfo'][] = [
  { card: 'kuraklik', name: { tr: 'Kuraklık', en: 'Drought' }, effect: { tr: 'üretim yok', en: 'no production' }, count: 7, regional: true },
  { card: 'bayram', name: { tr: 'Bayram', en: 'Bayram' }, effect: { tr: 'ateşkes', en: 'ceasefire' }, count: 2, regional: false },
  { card: 'seyyah_tuccar', name: { tr: 'Seyyah tüccar', en: 'Travelling merchant' }, effect: { tr: '+2', en: '+2' }, count: 3, regional: false },
];

describe('the news card (R-8)', () => {
  it('is the news line of the Divan, named and explained by the board', () => {
    const c = newsCard([line('battle', {}), line('news', { card: 'kuraklik', region: 'Ege', province: null, seat: null })], deck);
    expect(c?.name?.tr).toBe('Kuraklık');
    expect(c?.effect?.en).toBe('no production');
    expect(c?.region).toBe('Ege');
    expect(c?.province).toBeNull();
  });
  it('names the bey of a card drawn for a bey, and the province of one drawn for a province', () => {
    const bey = newsCard([line('news', { card: 'seyyah_tuccar', region: null, province: 6, seat: 3 })], deck);
    expect([bey?.seat, bey?.province]).toEqual([3, 6]);
  });
  it('is none at a Divan without a news line (the first, R-8.1)', () => {
    expect(newsCard([line('battle', {})], deck)).toBeNull();
  });
  it('keeps the server line for a card the board does not list (shown as text)', () => {
    const c = newsCard([line('news', {}, '<b>x</b>')], deck);
    expect(c?.card).toBeNull();
    expect(c?.name).toBeNull();
    expect(c?.line.tr).toBe('<b>x</b>');
  });
  it('counts the cards left in the deck: drawn without replacement, one per Divan', () => {
    const reports = [
      { kind: 'divan', divan: 1, lines: [line('battle', {})] },
      { kind: 'divan', divan: 2, lines: [line('news', { card: 'bayram' })] },
      { kind: 'divan', divan: 3, lines: [line('news', { card: 'kuraklik', region: 'Ege' })] },
      { kind: 'kurultay', divan: null, lines: [line('news', { card: 'bayram' })] },
    ];
    expect(deckLeft(reports, deck)).toEqual({ left: 10, total: 12 });
  });
  it('marks its region, or its one province, on the map', () => {
    const regions = [{ name: 'Ege', plates: [35, 9] }];
    expect(newsPlates(newsCard([line('news', { card: 'kuraklik', region: 'Ege' })], deck), regions)).toEqual([35, 9]);
    expect(newsPlates(newsCard([line('news', { card: 'deprem', province: 34 })], deck), regions)).toEqual([34]);
    expect(newsPlates(newsCard([line('news', { card: 'bayram' })], deck), regions)).toEqual([]);
    expect(newsPlates(null, regions)).toEqual([]);
  });
});

describe('titles on the map (R-10.2)', () => {
  const titles = {
    season_id: 's',
    version: 9,
    regions: { Marmara: { seat: 2, title: 'hakimi' }, Ege: { seat: 2, title: 'beyi' }, İç: { seat: 5, title: 'beyi' } },
    hain: [7],
    surgun: [],
    han: 5 as number | null,
  };
  const memleket = new Map([[2, 34], [5, 6], [7, 1]]);
  it('puts one mark per titled bey at its memleket, in seat order, its regions sorted', () => {
    const marks = titleMarks(titles, memleket);
    expect(marks.map((m) => [m.seat, m.plate])).toEqual([[2, 34], [5, 6]]);
    expect(marks[0]?.regions.map((r) => r.region)).toEqual(['Ege', 'Marmara']);
    expect(marks[1]?.han).toBe(true);
  });
  it('draws ♛ with the number of regions when more than one, ♚ for the Han', () => {
    const [two, han] = titleMarks(titles, memleket);
    expect(two && markGlyph(two)).toBe('♛2');
    expect(han && markGlyph(han)).toBe('♚♛');
    expect(markGlyph({ seat: 1, plate: 1, regions: [], han: true })).toBe('♚');
  });
  it('names the API’s beyi and hakimi as the game does, in both languages', () => {
    expect([titleName('beyi'), titleName('hakimi'), titleName('other')]).toEqual(['Bölge Beyi', 'Bölge Hakimi', 'other']);
  });
  it('marks no one without titles or without a known memleket', () => {
    expect(titleMarks(null, memleket)).toEqual([]);
    expect(titleMarks({ ...titles, han: null }, new Map())).toEqual([]);
  });
});

describe('a battle in full (R-5.8)', () => {
  const names = new Map([[6, 'Ankara'], [71, 'Kırıkkale'], [18, 'Çankırı']]);
  const nameOf = (p: number) => names.get(p) ?? String(p);
  const battle: Battle = {
    target: 71,
    defender: 4,
    defender_units: 3,
    defence_bonus: 1,
    defence_support: [[4, 18, 2]],
    groups: [
      { beys: [1], advances: [[1, 6, 5]], support: [[2, 18, 1]], strength: 6, traitor: false },
      { beys: [3], advances: [[3, 18, 2]], support: [], strength: 2, traitor: true },
    ],
    outcome: 'taken',
    fighting_group: 0,
    attack: 8,
    defence: 6,
    attack_die: 2,
    defence_die: 0,
    attacker_losses: 3,
    defender_losses: 3,
    entering: 2,
    taker: 1,
    shares: [],
    rules: [],
  };
  it('says every group with its advances and supports, the defence, both dice, losses and the taker', () => {
    const lines = battleDetail(battle, nameOf);
    expect(lines[0]).toBe('Saldıran grup 1. bey: güç 6 (savaşan grup) — ilerleyen: 1. bey, Ankara ilinden 5 — destek: 2. bey, Çankırı ilinden 1');
    expect(lines[1]).toContain('(Hain)');
    expect(lines[2]).toBe('Savunma: 3 birlik, bonus +1 — destek: 4. bey, Çankırı ilinden 2');
    expect(lines[3]).toBe('Zar: saldırı 2, savunma 0 — saldırı 8, savunma 6');
    expect(lines[4]).toBe('Kayıp: saldıran 3, savunan 3; 1. bey aldı, 2 birlik girdi');
  });
  it('has no dice line for a battle nobody fought (a standoff)', () => {
    const standoff: Battle = { ...battle, outcome: 'standoff', fighting_group: null, attack: null, defence: null, attack_die: null, defence_die: null, taker: null };
    const lines = battleDetail(standoff, nameOf);
    expect(lines.some((l) => l.startsWith('Zar'))).toBe(false);
    expect(lines.at(-1)).toBe('Kayıp: saldıran 3, savunan 3');
  });
});

describe('registration: the free memleket (R-1.4)', () => {
  const provinces = {
    '6': { owner: 1, units: 6, sur: false, memleket_of: 1 },
    '71': { owner: null, milis: 2, memleket_of: null },
    '18': { owner: null, milis: 2 },
  } as unknown as Parameters<typeof freeMemleket>[0];
  it('offers the plates nobody has taken, in order', () => {
    expect(freeMemleket(provinces, [71, 6, 18])).toEqual([18, 71]);
  });
  it('offers every plate while the map is not known', () => {
    expect(freeMemleket(null, [3, 1, 2])).toEqual([1, 2, 3]);
  });
});

describe('a refusal’s members', () => {
  it('are said in words, lists joined, objects and the omitted left out, never a JSON path', () => {
    const members = { field: '$.orders[0].units', maximum: 12, province: 6, nested: { a: 1 }, free: [3, 4] };
    expect(membersText(members, ['province'], 'tr')).toBe('yer: 1. emir, Birlik · en fazla: 12 · free: 3, 4');
    expect(membersText(members, ['province'], 'en')).toBe('where: order 1, Units · at most: 12 · free: 3, 4');
    expect(membersText({ field: '$.name', minimum: 2 }, [], 'tr')).toBe('yer: Ad · en az: 2');
    expect(membersText({})).toBe('');
  });
});

describe('offer outcomes (R-6.1 … R-6.3)', () => {
  it('are the offer lines of the own reports, newest Divan first, at most `most`', () => {
    const own = [
      { divan: 2, lines: [line('offer', {}, 'a'), line('battle', {})] },
      { divan: 3, lines: [line('offer', {}, 'b'), line('offer_withdrawn', {}, 'c')] },
    ];
    expect(offerOutcomes(own).map((o) => [o.divan, o.line.tr])).toEqual([[3, 'b'], [3, 'c'], [2, 'a']]);
    expect(offerOutcomes(own, 1)).toHaveLength(1);
    expect(offerOutcomes(undefined)).toEqual([]);
  });
});
