// ADR-178: a request that issues a secret (a join, a season's or a player's creation, a
// token's rotation) carries a secret the client drew itself, kept on this device before it is
// sent; its answer lost, it is sent again as it was sent first (same body, same secret, same
// Idempotency-Key), and the server answers it as it answered the first: one seat, one token.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { api, configure } from '../../src/api/client';
import { drawSecret, pendingFor, settle } from '../../src/logic/pending';
import type { KeyValue } from '../../src/logic/storage';

function answer(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

function memory(): KeyValue & { data: Map<string, string> } {
  const data = new Map<string, string>();
  return { data, getItem: (k) => data.get(k) ?? null, setItem: (k, v) => void data.set(k, v) };
}

const SEASON = '0123456789abcdef0123456789abcdef';
const bodyOf = (c: unknown[]) => JSON.parse(String((c[1] as RequestInit).body)) as Record<string, unknown>;
const keyOf = (c: unknown[]) => ((c[1] as RequestInit).headers as Record<string, string>)['Idempotency-Key'];
const dropped = () => new TypeError('Failed to fetch');

describe('a secret of the client’s own', () => {
  it('is 24 random bytes as URL-safe base64: 32 characters, the server’s shape', () => {
    const drawn = new Set(Array.from({ length: 200 }, drawSecret));
    expect(drawn.size).toBe(200);
    for (const s of drawn) expect(s).toMatch(/^[A-Za-z0-9_-]{32}$/);
  });

  it('is kept before the request is sent, the same for the same request, forgotten once answered', () => {
    const m = memory();
    const first = pendingFor(m, 'join:s:6', ['token_secret'], () => 'k1', 1000);
    expect(m.data.get('seksenbir.pending.v1')).toContain(first.secrets.token_secret);
    expect(pendingFor(m, 'join:s:6', ['token_secret'], () => 'k2', 2000)).toEqual(first);
    expect(pendingFor(m, 'join:s:7', ['token_secret'], () => 'k3', 2000).secrets.token_secret).not.toBe(first.secrets.token_secret);
    settle(m, 'join:s:6', 3000);
    expect(pendingFor(m, 'join:s:6', ['token_secret'], () => 'k4', 4000).key).toBe('k4');
  });

  it('is not kept past half a day, nor when storage holds something else', () => {
    const m = memory();
    const first = pendingFor(m, 'x', ['token_secret'], () => 'k1', 0);
    expect(pendingFor(m, 'x', ['token_secret'], () => 'k2', 13 * 3600 * 1000).key).toBe('k2');
    m.setItem('seksenbir.pending.v1', '{not json');
    expect(pendingFor(m, 'x', ['token_secret'], () => 'k3', 0).key).toBe('k3');
    expect(first.key).toBe('k1');
  });
});

describe('a request that issues a secret, its first answer dropped', () => {
  let store: ReturnType<typeof memory>;
  beforeEach(() => {
    vi.useFakeTimers();
    store = memory();
    configure({ lang: () => 'tr', waiting: () => undefined, resending: () => undefined, waited: () => undefined, store });
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });

  // the server's answer to the one request it did, made from the secret the client sent
  const cases: [string, () => Promise<unknown>, string[], (body: Record<string, unknown>) => unknown][] = [
    ['a join', () => api.join(SEASON, 6, 'Ayşe'), ['token_secret'], (b) => ({ season_id: SEASON, seat: 2, token: `sb1.${SEASON}.2.${String(b.token_secret)}`, memleket: 6 })],
    ['a trial creation', () => api.createTrial(6), ['token_secret'], (b) => ({ season_id: SEASON, seat: 1, token: `sb1.${SEASON}.1.${String(b.token_secret)}`, seed_commitment: 'c' })],
    [
      'a live creation',
      () => api.createLive({ mode: 'live', memleket: 6, registration_closes_at: '2027-01-01T00:00:00+03:00' } as never),
      ['token_secret', 'admin_secret'],
      (b) => ({ season_id: SEASON, admin_token: `sba1.${SEASON}.${String(b.admin_secret)}`, creator: { seat: 1, token: `sb1.${SEASON}.1.${String(b.token_secret)}`, memleket: 6 } }),
    ],
    ['a token rotation', () => api.rotateToken(SEASON, `sb1.${SEASON}.2.${'o'.repeat(32)}`), ['token_secret'], (b) => ({ seat: 2, token: `sb1.${SEASON}.2.${String(b.token_secret)}` })],
    ['a player creation', () => api.createPlayer('Ayşe'), ['key_secret'], (b) => ({ player_id: 'p', player_key: `sbp1.p.${String(b.key_secret)}` })],
  ];

  it.each(cases)('%s is sent again as it was sent first and the one answer is the client’s', async (_kind, send, fields, made) => {
    const fetch = vi
      .fn()
      .mockRejectedValueOnce(dropped())
      .mockImplementation(async (_url: string, init: RequestInit) => answer(201, made(JSON.parse(String(init.body)) as Record<string, unknown>)));
    vi.stubGlobal('fetch', fetch);
    const done = send();
    await vi.advanceTimersByTimeAsync(0);
    // kept before it was sent: the secret is on this device while the answer is awaited
    const kept = store.data.get('seksenbir.pending.v1') ?? '';
    const first = fetch.mock.calls[0] ?? [];
    for (const f of fields) expect(kept).toContain(String(bodyOf(first)[f]));
    await vi.advanceTimersByTimeAsync(1500);
    const out = (await done) as Record<string, unknown>;
    expect(fetch).toHaveBeenCalledTimes(2);
    const [a, b] = fetch.mock.calls;
    expect(bodyOf(b ?? [])).toEqual(bodyOf(a ?? [])); // the same body: the same secrets
    expect(keyOf(b ?? [])).toBe(keyOf(a ?? [])); // and the same Idempotency-Key
    for (const f of fields) expect(String(bodyOf(a ?? [])[f])).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(out).toEqual(made(bodyOf(a ?? [])));
    expect(JSON.stringify(out)).toContain(String(bodyOf(a ?? [])[fields[0] ?? '']));
    expect(store.data.get('seksenbir.pending.v1')).toBe('{}'); // answered: forgotten
  });

  it('a join that found no answer at all is kept, and the player’s next try is the same join', async () => {
    const fetch = vi.fn().mockRejectedValue(dropped());
    vi.stubGlobal('fetch', fetch);
    const lost = api.join(SEASON, 6).then(
      () => 'ok',
      (e: Error) => e.message,
    );
    await vi.advanceTimersByTimeAsync(8000);
    expect(await lost).toBe('Failed to fetch');
    expect(fetch).toHaveBeenCalledTimes(4); // the first and its three resends (1, 2, 4 s)
    fetch.mockImplementation(async (_url: string, init: RequestInit) => {
      const b = JSON.parse(String(init.body)) as Record<string, unknown>;
      return answer(201, { season_id: SEASON, seat: 3, token: `sb1.${SEASON}.3.${String(b.token_secret)}`, memleket: 6 });
    });
    const later = await api.join(SEASON, 6);
    const sent = fetch.mock.calls.map(bodyOf);
    expect(new Set(sent.map((b) => b.token_secret)).size).toBe(1);
    expect(later.token.endsWith(String(sent[0]?.token_secret))).toBe(true);
    // another memleket is another join, with a secret of its own
    await api.join(SEASON, 34);
    expect(bodyOf(fetch.mock.calls.at(-1) ?? []).token_secret).not.toBe(sent[0]?.token_secret);
  });

  it('a refusal is an answer: the next try is a new request', async () => {
    const fetch = vi.fn().mockResolvedValueOnce(answer(409, { code: 'memleket_taken', free_neighbours: [14] })).mockResolvedValue(answer(201, {}));
    vi.stubGlobal('fetch', fetch);
    await expect(api.join(SEASON, 6)).rejects.toMatchObject({ code: 'memleket_taken' });
    await api.join(SEASON, 6);
    const [a, b] = fetch.mock.calls.map(bodyOf);
    expect(a?.token_secret).not.toBe(b?.token_secret);
  });
});
