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

/** What a device holding no key of the season is told, from the season's status: `join` while
 * a live season's registration is open (the join form is offered: "you can only watch" beside
 * it was untrue), `watch` once it is not (a trial, play, the Kurultay, the end, a cancelled
 * season), and nothing while the status is not known yet (the first draw used to say "watch"
 * before it was read, during registration too) or when the device's key was refused (its own
 * notice says so and where to paste the new key). */
export function visitorNote(
  status: { mode: string; phase: string; cancelled?: boolean | null } | null,
  seated: boolean,
  keyRefused: boolean,
): 'join' | 'watch' | null {
  if (seated || keyRefused || !status) return null;
  if (status.mode === 'live' && status.phase === 'registration' && !status.cancelled) return 'join';
  return 'watch';
}
