// Spending (RULES.md ): what each costs and when it is allowed, from the bey's own view
// and the map; the server decides, the client only offers what the rules allow.
import { MAX_UNITS, type Holding } from './orders';

export type Spend = 'sur' | 'paralı_asker' | 'satın_alma';

export const COST: Record<Spend, number> = { sur: 3, paralı_asker: 2, satın_alma: 4 };

export interface Place extends Holding {
  sur?: boolean;
  milis?: number;
}

/** Sur: the bey's own province, once per province, 3 gold. */
export function canSur(map: Record<string, Place>, seat: number, province: number, gold: number): boolean {
  const p = map[String(province)];
  return !!p && p.owner === seat && !p.sur && gold >= COST.sur;
}

/** Paralı asker: +2 units in an own province, never beyond 12, 2 gold. */
export function canHire(map: Record<string, Place>, seat: number, province: number, gold: number): boolean {
  const p = map[String(province)];
  return !!p && p.owner === seat && (p.units ?? 0) + 2 <= MAX_UNITS && gold >= COST.paralı_asker;
}

/** Satın alma: the unowned neighbours of `province` (the bey's) with milis ≤ 2. */
export function purchasable(
  neighbours: ReadonlyMap<number, readonly number[]>,
  map: Record<string, Place>,
  seat: number,
  province: number,
): number[] {
  if (map[String(province)]?.owner !== seat) return [];
  return (neighbours.get(province) ?? [])
    .filter((n) => {
      const p = map[String(n)];
      return !!p && p.owner === null && (p.milis ?? 0) <= 2;
    })
    .sort((a, b) => a - b);
}
