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
