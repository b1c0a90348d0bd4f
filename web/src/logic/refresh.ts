// When a round of a season's reads shows what the screen waits for (ui/season.ts `refresh`).
// The five reads are asked at once and each is answered at the version the read side was at
// when it was served, so one may be behind another: a command's effect (stored at `version`)
// is shown only once every read has reached it, not the map alone.
import type { Schemas } from '../api/client';

export interface SeasonReads {
  status: { divan: number };
  map: Schemas['MapOut'];
  me: Schemas['PrivateView'] | null;
  reports: Schemas['ReportsOut'];
  leaderboard: Schemas['LeaderboardOut'];
  titles: Schemas['TitlesOut'];
}

/** Every read at `version` at least (when given), and Divan `divan` (when given) resolved,
 * on the map, in the public reports and, for a bey, in its own. */
export function caughtUp(r: SeasonReads, version: number | null, divan: number | null): boolean {
  const versions = [r.map.version, r.reports.version, r.leaderboard.version, r.titles.version];
  if (r.me) versions.push(r.me.version);
  if (version !== null && versions.some((v) => v < version)) return false;
  if (divan === null) return true;
  return (
    r.status.divan >= divan &&
    r.map.divan >= divan &&
    r.reports.reports.some((x) => x.kind === 'divan' && x.divan === divan) &&
    (r.me === null || (r.me.reports ?? []).some((x) => x.divan === divan))
  );
}
