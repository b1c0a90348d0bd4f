// A request that issues a secret (a join, a season's or a player's creation, a token's
// rotation), kept on this device before it is sent (ADR-178): the secrets the client drew
// itself and the Idempotency-Key it goes with. If its answer is lost (a dropped connection, a
// phone in a tunnel, the tab closed), the same request is sent again with the same secrets and
// key, and the server answers it as it answered the first: the same seat, token, season or
// player, never a second one and never a seat that belongs to nobody. Settled (forgotten) once
// the server answered it, whatever the answer; kept while no answer came.
import type { KeyValue } from './storage';

export interface Pending {
  secrets: Record<string, string>; // body field -> the secret sent in it
  key: string; // the Idempotency-Key sent with it
  saved: number; // ms since the epoch, for dropping old ones
}

const PENDING = 'seksenbir.pending.v1';
// a key the server has forgotten (its Idempotency-Key records go after a day) is no use, and
// a join's or a rotation's secret sent days later would be a new request anyway
const KEEP_MS = 12 * 3600 * 1000;

/** 24 random bytes as URL-safe base64 without padding: 32 characters of A-Z a-z 0-9 _ -,
 * 192 bits, exactly the shape of the server's own secrets (ADR-178). */
export function drawSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  let text = '';
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_');
}

function validPending(x: unknown): x is Pending {
  if (typeof x !== 'object' || x === null) return false;
  const o = x as Record<string, unknown>;
  return (
    typeof o.key === 'string' &&
    typeof o.saved === 'number' &&
    typeof o.secrets === 'object' &&
    o.secrets !== null &&
    Object.values(o.secrets).every((s) => typeof s === 'string' && /^[A-Za-z0-9_-]{32}$/.test(s))
  );
}

function loadAll(store: KeyValue, now: number): Record<string, Pending> {
  try {
    const parsed = JSON.parse(store.getItem(PENDING) ?? '{}') as Record<string, unknown>;
    const kept: Record<string, Pending> = {};
    for (const [what, p] of Object.entries(parsed ?? {})) {
      if (validPending(p) && now - p.saved < KEEP_MS) kept[what] = p;
    }
    return kept;
  } catch {
    return {};
  }
}

/** The request `what` names (its kind and what makes it the same request: the season and
 * memleket of a join, a creation's body) as kept before it was first sent, or a new one with
 * a secret drawn for each of `fields` and a new key, saved before it is returned (so before
 * it is sent). */
export function pendingFor(store: KeyValue, what: string, fields: string[], key: () => string, now: number = Date.now()): Pending {
  const all = loadAll(store, now);
  const kept = all[what];
  if (kept && fields.every((f) => f in kept.secrets)) return kept;
  const made: Pending = { secrets: Object.fromEntries(fields.map((f) => [f, drawSecret()])), key: key(), saved: now };
  all[what] = made;
  store.setItem(PENDING, JSON.stringify(all));
  return made;
}

/** The request was answered (done or refused): a later one is a new request. */
export function settle(store: KeyValue, what: string, now: number = Date.now()): void {
  const all = loadAll(store, now);
  delete all[what];
  store.setItem(PENDING, JSON.stringify(all));
}
