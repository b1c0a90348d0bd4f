// The console's calls (issue 26, docs/web.md "The console"): the ops and auditor endpoints of
// the public API, each with the staff token the console holds in the tab's memory only (never
// in storage: ui/console.ts). Exports are fetched as files and offered as a download.
import { call, problemOf, type Schemas } from './client';

export type Explain = Schemas['ExplainOut'];
export type BattleNote = Schemas['BattleNote'];
export type WhatIfIn = Schemas['WhatIfIn'];
export type WhatIfOut = Schemas['WhatIfOut'];
export type CorrectionIn = Schemas['CorrectionIn'];
export type Preview = Schemas['CorrectionPreviewOut'];
export type Verify = Schemas['VerifyOut'];
export type OpsReads = Schemas['OpsReadsOut'];
export type SeasonBetrayals = Schemas['SeasonBetrayals'];
export type ChatActs = Schemas['ActsOut'];

const seg = encodeURIComponent;
const ops = (season: string) => `/ops/seasons/${seg(season)}`;

export const consoleApi = {
  status: (season: string) => call<Schemas['SeasonStatus']>('GET', `/seasons/${seg(season)}`),
  map: (season: string) => call<Schemas['MapOut']>('GET', `/seasons/${seg(season)}/map`),
  // `min_version`: read your writes (the read side answers once it has projected that version)
  reports: (season: string, minVersion: number) =>
    call<Schemas['ReportsOut']>('GET', `/seasons/${seg(season)}/reports?min_version=${minVersion}`),
  explain: (token: string, season: string, divan: number) =>
    call<Explain>('GET', `${ops(season)}/divans/${divan}/explain`, { token }),
  whatIf: (token: string, season: string, divan: number, body: WhatIfIn) =>
    call<WhatIfOut>('POST', `${ops(season)}/divans/${divan}/what-if`, { token, body }),
  fork: (token: string, season: string, divan: number, seat: number) =>
    call<Schemas['ForkedOut']>('POST', `/seasons/${seg(season)}/fork`, { token, body: { divan, seat } }),
  dryRun: (token: string, season: string, body: CorrectionIn) =>
    call<Preview>('POST', `${ops(season)}/corrections/dry-run`, { token, body }),
  correct: (token: string, season: string, body: CorrectionIn) =>
    call<Schemas['CorrectionOut']>('POST', `${ops(season)}/corrections`, { token, body }),
  verify: (token: string, season: string) => call<Verify>('GET', `${ops(season)}/verify`, { token }),
  opsReads: (token: string, season: string) =>
    call<OpsReads>('GET', `/seasons/${seg(season)}/audit/ops-reads?limit=1000`, { token }),
  // moderation acts: who reported or hid which message, when; never a text
  chatActs: (token: string, season: string) => call<ChatActs>('GET', `/seasons/${seg(season)}/audit/chat-acts`, { token }),
  history: (token: string, season: string) =>
    call<SeasonBetrayals>('GET', `/seasons/${seg(season)}/betrayals/history`, { token }),
  player: (id: string) => call<Schemas['PlayerRecordOut']>('GET', `/players/${seg(id)}`),
  memleketHistory: (token: string, plate: number) =>
    call<Schemas['MemleketBetrayalsOut']>('GET', `/betrayals/memleket/${plate}`, { token }),
};

/** The season's export (NDJSON) as a Blob: ops' full one, or an auditor's, redacted while the
 * season runs (R-14, docs/export.md). */
export async function exportBlob(token: string, season: string, full: boolean): Promise<Blob> {
  const path = full ? `${ops(season)}/export` : `/seasons/${seg(season)}/export`;
  const r = await fetch(`/v1${path}`, { headers: { Authorization: `Bearer ${token}` }, cache: 'no-store' });
  if (!r.ok) throw await problemOf(r);
  return await r.blob();
}

/** The seat a player holds in a season, from its export's `seat_bound.v1` line (public in
 * every export, the auditor's redacted one included: ADR-87); null when it holds none. */
export function seatOf(ndjson: string, player: string): number | null {
  for (const raw of ndjson.split('\n')) {
    if (!raw.includes('"seat_bound.v1"')) continue;
    const line = JSON.parse(raw) as { type?: string; data?: string };
    if (line.type !== 'seat_bound.v1' || typeof line.data !== 'string') continue;
    const bound = JSON.parse(line.data) as { seat?: number; player_id?: string };
    if (bound.player_id === player && typeof bound.seat === 'number') return bound.seat;
  }
  return null;
}

/** The season's betrayals in which the bey of `seat` betrayed or was betrayed. */
export function bySeat(s: SeasonBetrayals, seat: number): SeasonBetrayals {
  return { ...s, betrayals: s.betrayals.filter((b) => b.traitor.seat === seat || b.victim.seat === seat) };
}

/** A player's betrayals: in one season (its seat from the season's export), or across the
 * finished seasons its public record places it in (`GET /players/{id}`). */
export async function playerHistory(token: string, player: string, season: string | null): Promise<SeasonBetrayals[]> {
  let seats: [string, number][];
  if (season) {
    const seat = seatOf(await (await exportBlob(token, season, false)).text(), player);
    seats = seat === null ? [] : [[season, seat]];
  } else {
    seats = (await consoleApi.player(player)).places.map((p) => [p.season_id, p.seat]);
  }
  const out: SeasonBetrayals[] = [];
  for (const [id, seat] of seats) out.push(bySeat(await consoleApi.history(token, id), seat));
  return out;
}

/** A season id from what ops paste: the id itself or any link holding one (a bey's report
 * link `…/#/s/<id>`, an API URL); null when there is none. */
export function seasonIdOf(text: string): string | null {
  const m = /(?:^|[^0-9a-f])([0-9a-f]{32})(?![0-9a-f])/.exec(text.trim());
  if (m?.[1]) return m[1];
  const t = text.trim();
  return /^[A-Za-z0-9_-]{1,64}$/.test(t) ? t : null;
}
