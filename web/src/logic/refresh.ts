// When a round of a season's reads shows what the screen waits for (ui/season.ts `refresh`).
// The five reads are asked at once and each is answered at the version the read side was at
// when it was served, so one may be behind another: a command's effect (stored at `version`)
// is shown only once every read has reached it, not the map alone.
import { ApiProblem, type Schemas } from '../api/client';

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

/** What a read side that has not caught up answers: a season it does not name yet (404), or
 * 503 `not_yet_projected` (a `?min_version=` it did not reach within its wait). Asked again
 * until the refresh's deadline, saying so to the player. */
export function notYet(e: unknown): boolean {
  if (!(e instanceof ApiProblem)) return false;
  return e.status === 404 || (e.status === 503 && e.code === 'not_yet_projected');
}

/** A bey's own view (`read`: GET /private, at `?min_version=` when given), or 'refused' for a
 * key the season does not hold. The read side checks a key against the seats' token hashes it
 * has projected: just after a join or a renewal it may not hold the new key's yet and answers
 * 401 `bad_token` (session 24: the first bey's chat never came, the key taken for refused). So
 * a 401 is believed only from a read side at `stored` at least, the store's version read after
 * the key was made (the status's): the view is asked again at that version, which waits for
 * the projection (docs/api.md, read your writes). Another problem goes to the caller. */
export async function ownViewAt<T>(read: (minVersion: number | null) => Promise<T>, stored: number): Promise<T | 'refused'> {
  const refused = (e: unknown) => e instanceof ApiProblem && e.status === 401;
  try {
    return await read(null);
  } catch (e) {
    if (!refused(e)) throw e;
  }
  try {
    return await read(stored);
  } catch (e) {
    if (refused(e)) return 'refused';
    throw e;
  }
}

/** The season version a stream message's id names: `V-k` (k its place among version V's
 * messages), `V-k.cN` (N the chat's version) or a bare position `V` (docs/api.md, the event
 * stream); null for anything else. */
export function streamVersion(id: string | null | undefined): number | null {
  const m = /^(\d+)(?:-\d+)?(?:\.c\d+)?$/.exec(id ?? '');
  if (!m) return null;
  const v = Number(m[1]);
  return Number.isSafeInteger(v) ? v : null;
}

/** The reads a stream message asks for (ui/season.ts): its Divan for a report, and the
 * version its id names, so every read is asked at that version at least (`?min_version=`).
 * A message may come before this server's read side has what it announces (another read
 * side published it first, session 24: an `offer_received` read back without the offer, no
 * "Kabul et"); a read at its version waits for it. Null for a message that asks for no season
 * read (`ready`, `betrayals`; `chat_message`: the chat reads its channels itself). */
export function announced(event: string, data: unknown, id: string | null | undefined): { divan: number | null; version: number | null } | null {
  const version = streamVersion(id);
  if (event === 'offer_received' || event === 'offer_withdrawn' || event === 'offer_answered') return { divan: null, version };
  if (event === 'divan_report' || event === 'private_report' || event === 'kurultay_report' || event === 'season_over') {
    const d = (data as { divan?: unknown } | null)?.divan;
    return { divan: typeof d === 'number' ? d : null, version };
  }
  return null;
}

/** The `?min_version=` a round of reads asks: the version waited for, never past the store's
 * (`stored`, the status read first: a version past it is 422, not a wait). */
export function askAt(version: number | null, stored: number): number | null {
  return version === null ? null : Math.min(version, stored);
}

/** How long a refresh waits on the read side before the player is told (ms). */
export const CATCHING_UP_MS = 1_500;

/** The "server is catching up" notice of one refresh (ui/season.ts): `behind()` each time a
 * round finds the read side behind (503 `not_yet_projected`, a 404 of a season it does not
 * name yet, a read short of the version or Divan waited for); the first starts the clock, and
 * after `ms` of it `say()` puts the notice up, never before. `done()` once the reads answered
 * (or the refresh gave up): the clock stopped, and a notice said is taken back (`unsay()`). */
export function catchingUp(say: () => void, unsay: () => void, ms = CATCHING_UP_MS): { behind(): void; done(): void } {
  let timer: ReturnType<typeof setTimeout> | null = null;
  let said = false;
  let over = false;
  return {
    behind() {
      if (over || timer) return;
      timer = setTimeout(() => {
        said = true;
        say();
      }, ms);
    },
    done() {
      over = true;
      if (timer) clearTimeout(timer);
      if (said) unsay();
    },
  };
}
