// The client's one polite wait after a 429 (api/client.ts): the player is told while it lasts,
// and told it is over once the one more try has its answer — the e2e's report screen kept
// "the server is busy; one more try in 1 second" long after that try had succeeded.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { api, call, configure } from '../../src/api/client';

function answer(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json', ...headers },
  });
}

describe('a 429 waited out once', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });

  it.each([
    ['succeeds', answer(200, { ok: true })],
    ['is refused again', answer(429, { code: 'rate_limited' }, { 'Retry-After': '1' })],
  ])('says the wait, then that it is over, when the one more try %s', async (_how, second) => {
    vi.useFakeTimers();
    const told: string[] = [];
    configure({ lang: () => 'tr', waiting: (n) => told.push(`waiting ${n}`), waited: () => told.push('waited') });
    const fetch = vi
      .fn()
      .mockResolvedValueOnce(answer(429, { code: 'rate_limited' }, { 'Retry-After': '1' }))
      .mockResolvedValueOnce(second);
    vi.stubGlobal('fetch', fetch);
    const done = call('GET', '/board').then(
      () => 'ok',
      (e: Error) => e.message,
    );
    await vi.advanceTimersByTimeAsync(999);
    expect(told).toEqual(['waiting 1']);
    await vi.advanceTimersByTimeAsync(1);
    await done;
    expect(told).toEqual(['waiting 1', 'waited']);
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it('tells nothing when the first answer is not a 429', async () => {
    const told: string[] = [];
    configure({ lang: () => 'tr', waiting: () => told.push('waiting'), waited: () => told.push('waited') });
    vi.stubGlobal('fetch', vi.fn().mockResolvedValue(answer(200, {})));
    await call('GET', '/board');
    expect(told).toEqual([]);
  });
});

describe('the season reads at a version (read your writes, a stream message announced)', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('asks each read with ?min_version= when given, and without it otherwise', async () => {
    const fetch = vi.fn().mockImplementation(async () => answer(200, {}));
    vi.stubGlobal('fetch', fetch);
    await api.map('s1', 12);
    await api.reports('s1', 12);
    await api.leaderboard('s1', 12);
    await api.titles('s1', 12);
    await api.private('s1', 'tok', 12);
    await api.map('s1');
    const urls = fetch.mock.calls.map((c) => String(c[0]));
    expect(urls.slice(0, 5).every((u) => u.endsWith('?min_version=12'))).toBe(true);
    expect(urls[0]).toMatch(/\/seasons\/s1\/map\?min_version=12$/);
    expect(urls[5]).toMatch(/\/seasons\/s1\/map$/);
  });
});

// h-probe3, round 2: a command whose answer is lost, or that the store cannot take yet.
describe('a command sent again with its same Idempotency-Key', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });

  const keyOf = (c: unknown[]) => ((c[1] as RequestInit).headers as Record<string, string>)['Idempotency-Key'];

  it('when the connection dropped before its answer (the server may have done it)', async () => {
    vi.useFakeTimers();
    const told: string[] = [];
    configure({
      lang: () => 'tr',
      waiting: (n) => told.push(`waiting ${n}`),
      resending: (n) => told.push(`resending ${n}`),
      waited: () => told.push('waited'),
    });
    const fetch = vi
      .fn()
      .mockRejectedValueOnce(new TypeError('Failed to fetch'))
      .mockRejectedValueOnce(new TypeError('Failed to fetch'))
      .mockResolvedValueOnce(answer(200, { sent: true }));
    vi.stubGlobal('fetch', fetch);
    const done = call<{ sent: boolean }>('POST', '/seasons/s/orders', { token: 't', body: {}, keyed: true });
    await vi.advanceTimersByTimeAsync(3000);
    expect(await done).toEqual({ sent: true });
    expect(fetch).toHaveBeenCalledTimes(3);
    const keys = fetch.mock.calls.map(keyOf);
    expect(keys[0]).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(keys).size).toBe(1);
    expect(told).toEqual(['resending 1', 'waited', 'resending 2', 'waited']);
  });

  it('when the resend finds the first still running there (409 idempotency_key_in_flight)', async () => {
    vi.useFakeTimers();
    configure({ lang: () => 'tr', waiting: () => undefined });
    const fetch = vi
      .fn()
      .mockRejectedValueOnce(new TypeError('Failed to fetch'))
      .mockResolvedValueOnce(answer(409, { code: 'idempotency_key_in_flight' }))
      .mockResolvedValueOnce(answer(200, { sent: true }));
    vi.stubGlobal('fetch', fetch);
    const done = call('POST', '/seasons/s/orders', { token: 't', body: {}, keyed: true });
    await vi.advanceTimersByTimeAsync(3000);
    expect(await done).toEqual({ sent: true });
    expect(new Set(fetch.mock.calls.map(keyOf)).size).toBe(1);
  });

  it('and reports the failure after the last try, telling nothing more', async () => {
    vi.useFakeTimers();
    const told: string[] = [];
    configure({ lang: () => 'tr', waiting: () => told.push('waiting'), resending: (n) => told.push(`r${n}`), waited: () => told.push('w') });
    const fetch = vi.fn().mockRejectedValue(new TypeError('Failed to fetch'));
    vi.stubGlobal('fetch', fetch);
    const done = call('POST', '/seasons/s/orders', { token: 't', body: {}, keyed: true }).then(
      () => 'ok',
      (e: Error) => e.message,
    );
    await vi.advanceTimersByTimeAsync(7000);
    expect(await done).toBe('Failed to fetch');
    expect(fetch).toHaveBeenCalledTimes(4);
    expect(new Set(fetch.mock.calls.map(keyOf)).size).toBe(1);
    expect(told).toEqual(['r1', 'w', 'r2', 'w', 'r4', 'w']);
  });

  it('never for a route that does not honour the key (a join would be done twice)', async () => {
    configure({ lang: () => 'tr', waiting: () => undefined });
    const fetch = vi.fn().mockRejectedValueOnce(new TypeError('Failed to fetch')).mockResolvedValue(answer(201, {}));
    vi.stubGlobal('fetch', fetch);
    const done = call('POST', '/seasons/s/join', { body: { memleket: 6 } }).then(
      () => 'ok',
      (e: Error) => e.message,
    );
    expect(await done).toBe('Failed to fetch');
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('a chat message too, with its same key: the server posts it once (ADR-175)', async () => {
    vi.useFakeTimers();
    configure({ lang: () => 'tr', waiting: () => undefined, resending: () => undefined, waited: () => undefined });
    const sent = { message_id: 3, channel_id: 'all', at: '2026-12-07T20:00:00+03:00' };
    const fetch = vi.fn().mockRejectedValueOnce(new TypeError('Failed to fetch')).mockResolvedValue(answer(201, sent));
    vi.stubGlobal('fetch', fetch);
    const done = api.sendMessage('s', 't', 'all', 'selam');
    await vi.advanceTimersByTimeAsync(1500);
    expect(await done).toEqual(sent);
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(fetch.mock.calls[0]?.[0]).toContain('/seasons/s/messages');
    expect(new Set(fetch.mock.calls.map(keyOf)).size).toBe(1);
  });

  it('never blind after a busy store either, for a route that does not honour the key', async () => {
    vi.useFakeTimers();
    configure({ lang: () => 'tr', waiting: () => undefined, waited: () => undefined });
    const fetch = vi
      .fn()
      .mockResolvedValueOnce(answer(503, { code: 'store_busy' }, { 'Retry-After': '1' }))
      .mockRejectedValueOnce(new TypeError('Failed to fetch'))
      .mockResolvedValue(answer(201, {}));
    vi.stubGlobal('fetch', fetch);
    const done = call('POST', '/seasons/s/join', { body: { memleket: 6 } }).then(
      () => 'ok',
      (e: Error) => e.message,
    );
    await vi.advanceTimersByTimeAsync(8000);
    expect(await done).toBe('Failed to fetch');
    expect(fetch).toHaveBeenCalledTimes(2); // the wait's one more try, never a blind third
  });

  it('when the store was busy (503 store_busy, Retry-After): waited as told and said', async () => {
    vi.useFakeTimers();
    const told: string[] = [];
    configure({ lang: () => 'tr', waiting: (n) => told.push(`waiting ${n}`), waited: () => told.push('waited') });
    const fetch = vi
      .fn()
      .mockResolvedValueOnce(answer(503, { code: 'store_busy' }, { 'Retry-After': '2' }))
      .mockResolvedValueOnce(answer(202, { accepted: true }));
    vi.stubGlobal('fetch', fetch);
    const done = call<{ accepted: boolean }>('POST', '/seasons/s/orders', { token: 't', body: {} });
    await vi.advanceTimersByTimeAsync(1999);
    expect(told).toEqual(['waiting 2']);
    expect(fetch).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(await done).toEqual({ accepted: true });
    expect(told).toEqual(['waiting 2', 'waited']);
    expect(new Set(fetch.mock.calls.map(keyOf)).size).toBe(1);
  });
});
