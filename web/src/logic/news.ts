// The news card of a Divan, from the read side: the public report's `news` line names the
// card drawn and where it fell (its data: card, region, province, seat); the static board
// (`GET /board`) gives every card's name, effect and how many the deck holds.
import type { Schemas } from '../api/client';

type Line = Schemas['ReportLine'];
type Info = Schemas['NewsInfo'];
type Text = Schemas['Text'];

export interface NewsCard {
  card: string | null; // the card's id (kuraklik, hasat, …); null when the line names none
  name: Text | null; // from the board; null for a card the board does not list
  effect: Text | null;
  region: string | null;
  province: number | null;
  seat: number | null;
  line: Line; // the server's line, shown as it is when the board has no such card
}

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : null);

/** The news card among a Divan's public lines (the first `news` line), or null (R-8.1: none at
 * the first Divan). */
export function newsCard(lines: readonly Line[], deck: readonly Info[]): NewsCard | null {
  const line = lines.find((l) => l.kind === 'news');
  if (!line) return null;
  const card = str(line.data.card);
  const info = card === null ? undefined : deck.find((c) => c.card === card);
  return {
    card,
    name: info?.name ?? null,
    effect: info?.effect ?? null,
    region: str(line.data.region),
    province: num(line.data.province),
    seat: num(line.data.seat),
    line,
  };
}

/** Cards left in the season's deck after the Divans reported so far (R-8.1: 25 cards, drawn
 * without replacement, one per Divan from the second). */
export function deckLeft(
  reports: readonly { kind: string; divan?: number | null; lines: readonly Line[] }[],
  deck: readonly Info[],
): { left: number; total: number } {
  const total = deck.reduce((n, c) => n + c.count, 0);
  const known = new Set(deck.map((c) => c.card));
  const drawn = reports.filter(
    (r) => r.kind === 'divan' && r.lines.some((l) => l.kind === 'news' && known.has(str(l.data.card) ?? '')),
  ).length;
  return { left: Math.max(0, total - drawn), total };
}

/** The provinces a card fell on, to mark on the map: its region's, or its one province. */
export function newsPlates(card: NewsCard | null, regions: readonly { name: string; plates: number[] }[]): number[] {
  if (!card) return [];
  if (card.region !== null) return regions.find((r) => r.name === card.region)?.plates ?? [];
  return card.province !== null ? [card.province] : [];
}
