// Registration as the map shows it: the memleket still free, and a refusal's extra
// members said to the player.
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

/** A problem's extra members as "name: value" (the refusal box shows them beside `detail`);
 * those the client says in its own words are left out. */
export function membersText(members: Record<string, unknown>, omit: readonly string[] = []): string {
  return Object.entries(members)
    .filter(([k, v]) => !omit.includes(k) && v !== null && v !== undefined && (typeof v !== 'object' || Array.isArray(v)))
    .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : String(v)}`)
    .join(' · ');
}
