// Registration as the map shows it: the memleket still free.
import type { MapProvince } from '../api/client';

/** Plates nobody has taken as a memleket yet (unowned, no bey's memleket), in plate order;
 * every plate while the map is not known. */
export function freeMemleket(provinces: Record<string, MapProvince> | null, plates: readonly number[]): number[] {
  if (!provinces) return [...plates].sort((a, b) => a - b);
  return plates
    .filter((p) => {
      const here = provinces[String(p)];
      return !here || (here.owner === null && (here.memleket_of === null || here.memleket_of === undefined));
    })
    .sort((a, b) => a - b);
}
