// Titles on the map: a mark on the memleket of every bey holding a region title
// (Bölge Beyi / Bölge Hakimi) or the Han, beside the label (never in it: the label is the
// owner·units cue the players and the tests read).
import type { Schemas } from '../api/client';

type Titles = Schemas['TitlesOut'];

export interface TitleMark {
  seat: number;
  plate: number; // the bey's memleket
  regions: { region: string; title: string }[]; // sorted by region name
  han: boolean;
}

/** One mark per titled bey, at its memleket, in seat order; a bey whose memleket is not known
 * gets none. */
export function titleMarks(titles: Titles | null, memleketOf: ReadonlyMap<number, number>): TitleMark[] {
  if (!titles) return [];
  const marks = new Map<number, TitleMark>();
  const mark = (seat: number): TitleMark | null => {
    const plate = memleketOf.get(seat);
    if (plate === undefined) return null;
    let m = marks.get(seat);
    if (!m) marks.set(seat, (m = { seat, plate, regions: [], han: false }));
    return m;
  };
  for (const [region, r] of Object.entries(titles.regions).sort(([a], [b]) => a.localeCompare(b, 'tr'))) {
    mark(r.seat)?.regions.push({ region, title: r.title });
  }
  if (titles.han !== null) {
    const m = mark(titles.han);
    if (m) m.han = true;
  }
  return [...marks.values()].sort((a, b) => a.seat - b.seat);
}

/** The mark's glyph: ♛ for region titles (with their number when more than one), ♚ for the Han. */
export function markGlyph(m: TitleMark): string {
  const n = m.regions.length;
  return `${m.han ? '♚' : ''}${n > 0 ? '♛' : ''}${n > 1 ? n : ''}`;
}

/** The title as the game says it, in both languages: the API's `beyi` / `hakimi`. */
export function titleName(title: string): string {
  return title === 'hakimi' ? 'Bölge Hakimi' : title === 'beyi' ? 'Bölge Beyi' : title;
}
