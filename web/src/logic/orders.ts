// What a bey may order (RULES.md R-4), decided from the static board's neighbours and the map:
// only these are ever offered, so a refused set is the server's news, not the client's guess.

export type Kind = 'advance' | 'support' | 'hold';

export interface Draft {
  province: number;
  kind: Kind;
  target: number | null;
  units: number;
}

export interface Holding {
  owner: number | null;
  units?: number;
}

/** a province holds at most 12 units; the API takes 1 … 12 for N (D-27). */
export const MAX_UNITS = 12;

/** The provinces `seat` owns, in plate order. */
export function ownProvinces(map: Record<string, Holding>, seat: number): number[] {
  return Object.entries(map)
    .filter(([, p]) => p.owner === seat)
    .map(([plate]) => Number(plate))
    .sort((a, b) => a - b);
}

/**
 * The legal targets of an order from `province` (R-4.1, R-4.2): none unless `seat` owns it;
 * Bekle has none; İlerle and Destek go to any neighbour (own: a move; unowned: the milis;
 * another bey's: an attack), and never from a province that cannot send a unit (R-4.2's
 * clamp to units − 1 would make it nothing).
 */
export function legalTargets(
  neighbours: ReadonlyMap<number, readonly number[]>,
  map: Record<string, Holding>,
  seat: number,
  province: number,
  kind: Kind,
): number[] {
  const here = map[String(province)];
  if (!here || here.owner !== seat || kind === 'hold') return [];
  if (maxSent(here.units ?? 0) < 1) return [];
  return [...(neighbours.get(province) ?? [])].sort((a, b) => a - b);
}

/** at the Divan N is clamped to units − 1 (at least one unit stays). */
export function maxSent(units: number): number {
  return Math.max(0, Math.min(MAX_UNITS, units - 1));
}

/** The units an order actually sends at resolution, and whether the clamp bit. */
export function clamp(units: number, asked: number): { sent: number; clamped: boolean } {
  const sent = Math.min(asked, maxSent(units));
  return { sent, clamped: sent < asked };
}

/** A sane N for the input: a whole number 1 … 12 (the API's bounds), else null. */
export function parseUnits(text: string): number | null {
  if (!/^\d{1,2}$/.test(text.trim())) return null;
  const n = Number(text.trim());
  return n >= 1 && n <= MAX_UNITS ? n : null;
}

/** One order per province: the newer replaces the older. */
export function putOrder(set: readonly Draft[], order: Draft): Draft[] {
  return [...set.filter((o) => o.province !== order.province), order].sort(
    (a, b) => a.province - b.province,
  );
}

export function dropOrder(set: readonly Draft[], province: number): Draft[] {
  return set.filter((o) => o.province !== province);
}

/** "12 / 15": provinces with an order among those the bey owns (the rest hold, R-4.1). */
export function orderCount(set: readonly Draft[], own: readonly number[]): { given: number; of: number } {
  const mine = new Set(own);
  return { given: set.filter((o) => mine.has(o.province)).length, of: own.length };
}

/** The set as the API takes it (`POST /orders`): orders for provinces no longer owned dropped. */
export function toRequest(set: readonly Draft[], own: readonly number[]) {
  const mine = new Set(own);
  return set
    .filter((o) => mine.has(o.province))
    .map((o) =>
      o.kind === 'hold'
        ? { province: o.province, kind: o.kind }
        : { province: o.province, kind: o.kind, target: o.target, units: o.units },
    );
}

/** Which order of a refused set the problem names (`province`, or the `$.orders[i]` path). */
export function faultyProvince(
  members: Record<string, unknown>,
  sent: readonly { province: number }[],
): number | null {
  if (typeof members.province === 'number') return members.province;
  const field = members.field;
  if (typeof field === 'string') {
    const m = /^\$\.orders\[(\d+)\]/.exec(field);
    if (m) return sent[Number(m[1])]?.province ?? null;
  }
  return null;
}
