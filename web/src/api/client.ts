// The client's only door to the server: every call of the public API, typed by schema.d.ts
// (generated from the served OpenAPI document; tests/web/test_api_types.py keeps it current).
// Same origin only (the shell's CSP allows nothing else). A refusal is an ApiProblem carrying
// the problem's code, detail and extra members; a 429 is waited out once, politely, as its
// Retry-After says, and then reported — never retried in a loop. A command (POST) whose answer
// was lost is sent again a few times with its same Idempotency-Key when its route honours the
// key (`keyed`), and one the store could not take yet (503 store_busy) once as told: the server
// then does it once, never twice.
import { pendingFor, settle } from '../logic/pending';
import type { KeyValue } from '../logic/storage';
import type { components } from './schema';

export type Schemas = components['schemas'];
export type Board = Schemas['StaticBoard'];
export type ProvinceInfo = Schemas['ProvinceInfo'];
export type MapView = Schemas['MapOut'];
export type MapProvince = Schemas['Province'];
export type PrivateView = Schemas['PrivateView'];
export type OrderIn = Schemas['OrderIn'];
export type Report = Schemas['Report'];
export type ReportLine = Schemas['ReportLine'];
export type PublicBey = Schemas['PublicBey'];
export type Battle = Schemas['BattleRecord'];
export type Created = Schemas['CreatedOut'];
export type Status = Schemas['SeasonStatus'];
export type Summary = Schemas['SummaryOut'];

/** A problem+json refusal: `code` is stable, `detail` is for people, `members` the extras. */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly members: Record<string, unknown>,
    readonly retryAfter: number | null,
  ) {
    super(detail || code);
  }
}

export interface Hooks {
  /** The language asked of the server (Accept-Language). */
  lang: () => string;
  /** Told before a polite wait after a 429 (seconds). */
  waiting: (seconds: number) => void;
  /** Told when that wait's one more try has its answer (whatever it is): the wait is over. */
  waited?: () => void;
  /** Told before a command whose answer was lost (the connection dropped, perhaps after the
   * server had done it) is sent again with its same Idempotency-Key (seconds). */
  resending?: (seconds: number) => void;
  /** Told whether the last call reached the server (false: no network, no answer). */
  reachable?: (ok: boolean) => void;
  /** Where a request that issues a secret is kept before it is sent (logic/pending.ts):
   * localStorage, beside the tokens, unless told otherwise. */
  store?: KeyValue;
}

let hooks: Hooks = { lang: () => 'tr', waiting: () => undefined };

export function configure(h: Hooks): void {
  hooks = h;
}

const MAX_WAIT_S = 60;
const READ_RETRIES = 4;
// a command whose answer was lost is sent again after 1, 2 and 4 seconds, then reported
const RESEND_S = [1, 2, 4];

/** Retry-After in seconds (a number of seconds or an HTTP date), at least 1, at most 60. */
export function retryAfterSeconds(value: string | null, now: number = Date.now()): number {
  if (!value) return 5;
  const n = Number(value);
  const s = Number.isFinite(n) ? n : (Date.parse(value) - now) / 1000;
  if (!Number.isFinite(s)) return 5;
  return Math.min(MAX_WAIT_S, Math.max(1, Math.ceil(s)));
}

/** 128 random bits as hex (crypto.randomUUID needs a secure context; this does not). */
export function idempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function problemOf(r: Response): Promise<ApiProblem> {
  let body: Record<string, unknown> = {};
  try {
    body = (await r.json()) as Record<string, unknown>;
  } catch {
    /* not JSON: keep the status */
  }
  const { type: _t, title: _ti, status: _s, code, detail, instance: _i, ...members } = body;
  return new ApiProblem(
    r.status,
    typeof code === 'string' ? code : `http_${r.status}`,
    typeof detail === 'string' ? detail : r.statusText,
    members,
    r.headers.has('Retry-After') ? retryAfterSeconds(r.headers.get('Retry-After')) : null,
  );
}

async function send(url: string, init: RequestInit): Promise<Response> {
  try {
    const r = await fetch(url, init);
    hooks.reachable?.(true);
    return r;
  } catch (e) {
    hooks.reachable?.(false);
    throw e;
  }
}

async function problemCode(r: Response): Promise<unknown> {
  const body = (await r.clone().json().catch(() => ({}))) as { code?: unknown };
  return body.code;
}

async function stillRunning(r: Response): Promise<boolean> {
  return r.status === 409 && (await problemCode(r)) === 'idempotency_key_in_flight';
}

/** A command sent until it has an answer: a request that found no answer (the connection
 * dropped or timed out, maybe after the server committed it) is sent again with the same
 * headers — the same Idempotency-Key — so the server replays its first answer instead of doing
 * it twice; without this the player's own second try carried a new key (a chat message
 * posted twice). The player is told while it waits; after the last try the failure is thrown. */
async function sendCommand(url: string, init: RequestInit): Promise<Response> {
  for (let i = 0; ; i++) {
    let r: Response | null = null;
    let failure: unknown = null;
    try {
      r = await send(url, init);
    } catch (e) {
      failure = e;
    }
    if (i > 0) hooks.waited?.(); // the resend this try was has its outcome: its notice goes
    // a resend that reached the server while the lost first request still runs there: that
    // one's answer is not ready; wait and ask again with the same key
    if (r !== null && i > 0 && i < RESEND_S.length && (await stillRunning(r))) r = null;
    if (r !== null) return r;
    if (i === RESEND_S.length) throw failure;
    const wait = RESEND_S[i] ?? 1;
    hooks.resending?.(wait);
    await sleep(wait * 1000);
  }
}

/** The wait `r`'s Retry-After asks for, told to the player, then `again`; told when it is over. */
async function afterWait(r: Response, again: () => Promise<Response>): Promise<Response> {
  const wait = retryAfterSeconds(r.headers.get('Retry-After'));
  hooks.waiting(wait);
  await sleep(wait * 1000);
  try {
    return await again();
  } finally {
    hooks.waited?.();
  }
}

export async function call<T>(
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  opts: { token?: string; body?: unknown; keyed?: boolean; key?: string } = {},
): Promise<T> {
  const headers: Record<string, string> = { 'Accept-Language': hooks.lang() };
  if (opts.token) headers.Authorization = `Bearer ${opts.token}`;
  if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
  // Every command carries an Idempotency-Key (spending and offers require one): the one retry
  // after a 429 sends the same key, so the command is never done twice.
  if (method === 'POST') headers['Idempotency-Key'] = opts.key ?? idempotencyKey();
  const init: RequestInit = {
    method,
    headers,
    cache: 'no-cache',
    ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
  };
  // only a route that honours the key may be sent again blind (`keyed`: docs/api.md lists
  // `bad_idempotency_key` for it, a chat message too: ADR-175), or one that carries a secret
  // of the client's own by which the server knows it again (a join, a creation, a token's
  // rotation: ADR-178, `issuing`); any other would be done twice, so its lost answer is
  // reported instead
  const once = () => send(`/v1${path}`, init);
  const sent = () => (opts.keyed ? sendCommand(`/v1${path}`, init) : once());
  let r = await sent();
  // one polite wait as the server asks, then one more try; a second 429 goes to the player
  if (r.status === 429) r = await afterWait(r, once);
  // A read the read side cannot answer yet (503 with Retry-After: a season projected a moment
  // after its creation, a view being rebuilt) is asked again as told, a few times at most.
  for (let i = 0; method === 'GET' && r.status === 503 && r.headers.has('Retry-After') && i < READ_RETRIES; i++) {
    await sleep(Math.min(retryAfterSeconds(r.headers.get('Retry-After')), 5) * 1000);
    r = await send(`/v1${path}`, init);
  }
  // A command the store could not take yet (503 store_busy, Retry-After): nothing was done, so
  // it is waited out once as told, said like a 429's wait, and sent again with its same key.
  // Sent again as it was sent first: a route that does not honour the key is not resent blind.
  if (method === 'POST' && r.status === 503 && r.headers.has('Retry-After') && (await problemCode(r)) === 'store_busy') {
    r = await afterWait(r, sent);
  }
  if (!r.ok) throw await problemOf(r);
  if (r.status === 204) return undefined as T;
  return (await r.json()) as T;
}

const seg = encodeURIComponent;

const memoryStore: KeyValue = (() => {
  const data = new Map<string, string>();
  return { getItem: (k: string) => data.get(k) ?? null, setItem: (k: string, v: string) => void data.set(k, v) };
})();

function pendingStore(): KeyValue {
  if (hooks.store) return hooks.store;
  return typeof localStorage !== 'undefined' ? localStorage : memoryStore;
}

/** A request that issues a secret (ADR-178): the secrets of `fields` drawn here and kept
 * with its Idempotency-Key before it is sent (logic/pending.ts), so that a lost answer is
 * asked again — now, as a keyed command is (1, 2, 4 s), or later, when the player tries the
 * same again — with the same secrets and key, and the server answers what it answered first.
 * `what` names the request: the same `what`, the same secrets. Forgotten once answered. */
async function issuing<T>(what: string, fields: string[], path: string, opts: { token?: string; body: Record<string, unknown> }): Promise<T> {
  const store = pendingStore();
  const kept = pendingFor(store, what, fields, idempotencyKey);
  try {
    const out = await call<T>('POST', path, { ...opts, body: { ...opts.body, ...kept.secrets }, keyed: true, key: kept.key });
    settle(store, what);
    return out;
  } catch (e) {
    if (e instanceof ApiProblem && e.status < 500) settle(store, what); // answered: refused
    throw e;
  }
}

export const api = {
  board: () => call<Board>('GET', '/board'),
  // a bey's name is optional (R-15.5): sent only when given
  // the bey's token's secret is the client's own (ADR-178): a lost answer is asked again
  createTrial: (memleket: number, name: string | null = null) => {
    const body = { memleket, mode: 'trial', ...(name ? { name } : {}) };
    return issuing<Created>(`create:${JSON.stringify(body)}`, ['token_secret'], '/seasons', { body });
  },
  // a live season from home (issue 24): the creator's memleket, the close and the press mode;
  // its season-admin token's secret and (with a memleket) the creator's are the client's own
  createLive: (body: Schemas['CreateSeasonIn']) => {
    const fields = body.memleket ? ['token_secret', 'admin_secret'] : ['admin_secret'];
    return issuing<Schemas['LiveCreatedOut']>(`create:${JSON.stringify(body)}`, fields, '/seasons', { body: { ...body } });
  },
  // a player's key binds the seat to the player (issue 23); without one the seat is nobody's.
  // The same season and memleket again is the same join (ADR-178): its secret is kept
  join: (season: string, memleket: number, name: string | null = null, playerKey: string | null = null) =>
    issuing<Schemas['JoinedOut']>(`join:${season}:${memleket}`, ['token_secret'], `/seasons/${seg(season)}/join`, {
      body: { memleket, ...(name ? { name } : {}), ...(playerKey ? { player_key: playerKey } : {}) },
    }),
  lobby: (offset = 0) => call<Schemas['LobbyOut']>('GET', `/lobby?offset=${offset}&limit=20`),
  createPlayer: (name: string | null) => {
    const body = name ? { name } : {};
    return issuing<Schemas['PlayerKeyOut']>(`player:${JSON.stringify(body)}`, ['key_secret'], '/players', { body });
  },
  player: (id: string) => call<Schemas['PlayerRecordOut']>('GET', `/players/${seg(id)}`),
  leavePlayer: (id: string, key: string) =>
    call<Schemas['PlayerLeftOut']>('POST', `/players/${seg(id)}/leave`, { token: key }),
  status: (season: string) => call<Status>('GET', `/seasons/${seg(season)}`),
  summary: (season: string) => call<Summary>('GET', `/seasons/${seg(season)}/summary`),
  // the season's reads, each at `minVersion` at least when given (read your writes, and what a
  // stream message announced: logic/refresh.ts `announced`)
  map: (season: string, minVersion: number | null = null) => call<MapView>('GET', `/seasons/${seg(season)}/map${atLeast(minVersion)}`),
  reports: (season: string, minVersion: number | null = null) =>
    call<Schemas['ReportsOut']>('GET', `/seasons/${seg(season)}/reports${atLeast(minVersion)}`),
  titles: (season: string, minVersion: number | null = null) =>
    call<Schemas['TitlesOut']>('GET', `/seasons/${seg(season)}/titles${atLeast(minVersion)}`),
  leaderboard: (season: string, minVersion: number | null = null) =>
    call<Schemas['LeaderboardOut']>('GET', `/seasons/${seg(season)}/leaderboard${atLeast(minVersion)}`),
  // the season admin's acts (docs/api.md): with the season-admin token, each with its reason
  adminAct: (season: string, adminToken: string, act: 'postpone' | 'cancel' | 'pause' | 'resume', body: { reason: string; registration_closes_at?: string }) =>
    call<Schemas['AdminDoneOut']>('POST', `/seasons/${seg(season)}/admin/${act}`, { token: adminToken, body }),
  // the caller's webhooks; here only to check a season-admin key brought from another device (ui/keys.ts)
  webhooks: (season: string, token: string) =>
    call<Schemas['WebhooksOut']>('GET', `/seasons/${seg(season)}/webhooks`, { token }),
  // a new token for the bey's seat; the old one stops working at once (ui/token.ts)
  // (ADR-178: its secret kept until answered; sent again, with the old token, it is answered
  // with the same new token)
  rotateToken: (season: string, token: string) =>
    issuing<Schemas['TokenOut']>(`rotate:${season}`, ['token_secret'], `/seasons/${seg(season)}/token`, { token, body: {} }),
  // at `minVersion` at least when given (a key just made: logic/refresh.ts `ownViewAt`)
  private: (season: string, token: string, minVersion: number | null = null) =>
    call<PrivateView>('GET', `/seasons/${seg(season)}/private${atLeast(minVersion)}`, { token }),
  me: (season: string, token: string) =>
    call<PrivateView>('GET', `/seasons/${seg(season)}/me`, { token }),
  battles: (season: string, token: string, divan: number) =>
    call<Schemas['BattlesOut']>('GET', `/seasons/${seg(season)}/battles/${divan}`, { token }),
  sendOrders: (season: string, token: string, orders: OrderIn[], divan: number | null) =>
    call<unknown>('POST', `/seasons/${seg(season)}/orders`, {
      token,
      body: divan === null ? { orders } : { orders, divan },
      keyed: true,
    }),
  holdDivan: (season: string, token: string, divan: number) =>
    call<Schemas['DivanRequestedOut']>('POST', `/seasons/${seg(season)}/divans`, {
      token,
      body: { divan },
      keyed: true,
    }),
  spend: (season: string, token: string, kind: 'sur' | 'paralı_asker' | 'satın_alma', province: number) =>
    call<Schemas['Accepted']>('POST', `/seasons/${seg(season)}/spend`, { token, body: { kind, province }, keyed: true }),
  offer: (season: string, token: string, to: number, kind: 'pact' | 'alliance') =>
    call<Schemas['Accepted']>('POST', `/seasons/${seg(season)}/offers`, { token, body: { to, kind }, keyed: true }),
  // the offerer takes its open offer back before the Divan (R-6.1)
  withdraw: (season: string, token: string, to: number) =>
    call<Schemas['Accepted']>('POST', `/seasons/${seg(season)}/offers/${to}/withdraw`, { token, keyed: true }),
  answer: (season: string, token: string, from: number, answer: 'accept' | 'reject') =>
    call<Schemas['Accepted']>('POST', `/seasons/${seg(season)}/offers/${from}/answer`, { token, body: { answer }, keyed: true }),
  vote: (season: string, token: string, candidate: number) =>
    call<Schemas['Accepted']>('POST', `/seasons/${seg(season)}/kurultay/vote`, { token, body: { candidate }, keyed: true }),
  // the chat (issue 24): its own stream per season, read from the command API
  channels: (season: string, token: string) =>
    call<Schemas['ChannelsOut']>('GET', `/seasons/${seg(season)}/channels`, { token }),
  channelMessages: (season: string, token: string, channel: string, before: number | null) =>
    call<Schemas['MessagesOut']>(
      'GET',
      `/seasons/${seg(season)}/channels/${seg(channel)}/messages${before === null ? '' : `?before=${before}`}`,
      { token },
    ),
  sendMessage: (season: string, token: string, to: 'all' | number[], text: string) =>
    call<Schemas['MessageOut']>('POST', `/seasons/${seg(season)}/messages`, { token, body: { to, text }, keyed: true }),
  markRead: (season: string, token: string, channel: string, readTo: number) =>
    call<Schemas['ReadOut']>('POST', `/seasons/${seg(season)}/channels/${seg(channel)}/read`, {
      token,
      body: { read_to: readTo },
    }),
  report: (season: string, token: string, message: number) =>
    call<Schemas['ReportOut']>('POST', `/seasons/${seg(season)}/messages/${message}/report`, { token, body: {} }),
  mute: (season: string, token: string, other: number, muted: boolean) =>
    call<Schemas['MuteOut']>('POST', `/seasons/${seg(season)}/mutes/${other}`, { token, body: { muted } }),
  ticket: (season: string, token: string) =>
    call<Schemas['TicketOut']>('POST', `/seasons/${seg(season)}/tickets`, { token }),
  // Web Push (issue 25): the server's VAPID key, and this device's subscription for the bey
  pushKey: () => call<Schemas['PushKeyOut']>('GET', '/push/key'),
  subscribePush: (season: string, token: string, body: Schemas['PushSubscriptionIn']) =>
    call<Schemas['PushSubscriptionOut']>('POST', `/seasons/${seg(season)}/push-subscriptions`, { token, body }),
  // the bey's subscriptions (endpoints masked: scheme and host) and the deletion of one
  pushSubscriptions: (season: string, token: string) =>
    call<Schemas['PushSubscriptionsOut']>('GET', `/seasons/${seg(season)}/push-subscriptions`, { token }),
  deletePush: (season: string, token: string, id: string) =>
    call<Schemas['DeletedOut']>('DELETE', `/seasons/${seg(season)}/push-subscriptions/${seg(id)}`, { token }),
};

/** The event stream's URL: a single-use ticket for the bey's own events, and the position to
 * resume after (the last event id seen, or a season version). */
/** A read's `?min_version=` (docs/api.md, read your writes), or nothing. */
function atLeast(minVersion: number | null): string {
  return minVersion === null ? '' : `?min_version=${minVersion}`;
}

export function streamUrl(season: string, ticket: string | null, after: string | null): string {
  const q = new URLSearchParams();
  if (ticket) q.set('ticket', ticket);
  if (after) q.set('last_event_id', after);
  const qs = q.toString();
  return `/v1/seasons/${seg(season)}/events${qs ? `?${qs}` : ''}`;
}
