// The season screen's refresh (ui/season.ts): a command's effect is shown once every read has
// projected the version it was stored at — the five reads are answered apart, so the map may be
// at it while the bey's own view is not yet (the trial e2e's offer missing from the list).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiProblem, type Schemas } from '../../src/api/client';
import { NoticeStack } from '../../src/logic/notices';
import { announced, askAt, CATCHING_UP_MS, catchingUp, caughtUp, notYet, ownViewAt, streamVersion, type SeasonReads } from '../../src/logic/refresh';

function reads(at: { map?: number; me?: number | null; reports?: number; leaderboard?: number; titles?: number }, divan = 2): SeasonReads {
  const v = (x: number | undefined) => x ?? 10;
  return {
    status: { divan },
    map: { season_id: 's', version: v(at.map), divan, provinces: {} } as unknown as Schemas['MapOut'],
    me:
      at.me === null
        ? null
        : ({ season_id: 's', version: v(at.me), reports: [{ divan, lines: [] }] } as unknown as Schemas['PrivateView']),
    reports: { season_id: 's', version: v(at.reports), reports: [{ kind: 'divan', divan }] } as unknown as Schemas['ReportsOut'],
    leaderboard: { season_id: 's', version: v(at.leaderboard), divan, leaderboard: [] } as unknown as Schemas['LeaderboardOut'],
    titles: { season_id: 's', version: v(at.titles) } as unknown as Schemas['TitlesOut'],
  };
}

describe('a round of reads caught up with a command', () => {
  it('waits for the bey’s own view when the map has the version already', () => {
    expect(caughtUp(reads({ map: 10, me: 9 }), 10, null)).toBe(false);
  });

  it('waits for each of the public reads too', () => {
    expect(caughtUp(reads({ reports: 9 }), 10, null)).toBe(false);
    expect(caughtUp(reads({ leaderboard: 9 }), 10, null)).toBe(false);
    expect(caughtUp(reads({ titles: 9 }), 10, null)).toBe(false);
  });

  it('is caught up once every read is at the version or past it', () => {
    expect(caughtUp(reads({ map: 11, me: 10 }), 10, null)).toBe(true);
    expect(caughtUp(reads({ me: null }), 10, null)).toBe(true); // no bey: no own view to wait for
    expect(caughtUp(reads({ map: 3, me: 3 }), null, null)).toBe(true); // nothing waited for
  });

  it('waits for a Divan resolved, reported in public and in the bey’s own reports', () => {
    expect(caughtUp(reads({}, 2), null, 2)).toBe(true);
    expect(caughtUp(reads({}, 1), null, 2)).toBe(false);
    const noOwn = reads({}, 2);
    noOwn.me = { ...noOwn.me!, reports: [] };
    expect(caughtUp(noOwn, null, 2)).toBe(false);
    const noPublic = reads({}, 2);
    noPublic.reports = { ...noPublic.reports, reports: [] };
    expect(caughtUp(noPublic, null, 2)).toBe(false);
  });
});

describe('a bey\'s own view just after its key was made (session 24: the live e2e\'s chat never came)', () => {
  // The read side checks a key against the token hashes it has projected: a join's or a
  // renewal's new key is 401 `bad_token` there until it projects the join. The status, read
  // from the store after the key was made, says a version that holds it.
  const problem = (status: number, code: string) => new ApiProblem(status, code, '', {}, null);
  const readSide = (projected: number, holdsFrom: number) => {
    const asked: (number | null)[] = [];
    const read = async (minVersion: number | null) => {
      asked.push(minVersion);
      // a `?min_version=` read waits for the projection (docs/api.md): the key is there then
      const at = minVersion === null ? projected : Math.max(projected, minVersion);
      if (at < holdsFrom) throw problem(401, 'bad_token');
      return { version: at };
    };
    return { asked, read };
  };

  it('is not taken for refused while the read side is behind the store\'s version', async () => {
    const side = readSide(6, 7); // joined at version 7, projected up to 6
    expect(await ownViewAt(side.read, 7)).toEqual({ version: 7 });
    expect(side.asked).toEqual([null, 7]);
  });

  it('is read once when the read side holds the key', async () => {
    const side = readSide(7, 7);
    expect(await ownViewAt(side.read, 7)).toEqual({ version: 7 });
    expect(side.asked).toEqual([null]);
  });

  it('is refused when the read side at the store\'s version refuses the key too', async () => {
    const side = readSide(9, Number.POSITIVE_INFINITY); // a rotated or foreign key
    expect(await ownViewAt(side.read, 9)).toBe('refused');
    expect(side.asked).toEqual([null, 9]);
  });

  it('leaves another problem to the caller: a read side that did not catch up in its wait is asked again', async () => {
    const late = async (minVersion: number | null) => {
      throw minVersion === null ? problem(401, 'bad_token') : problem(503, 'not_yet_projected');
    };
    const caught = await ownViewAt(late, 7).catch((e: unknown) => e);
    expect(caught).toBeInstanceOf(ApiProblem);
    expect(notYet(caught)).toBe(true);
    expect(notYet(problem(404, 'season_not_found'))).toBe(true);
    expect(notYet(problem(503, 'projection_rebuilding'))).toBe(false);
    expect(notYet(problem(401, 'bad_token'))).toBe(false);
  });
});

describe('a stream message read again at the version it names (session 24: no "Kabul et")', () => {
  // An `offer_received` can come before this server's read side has the offer (another read
  // side published it first): read at no version, the bey's own view had no offer to accept.

  it('takes the season version from the message id', () => {
    expect(streamVersion('12-0')).toBe(12);
    expect(streamVersion('12-3.c7')).toBe(12); // a ticketed stream's id once chat was sent
    expect(streamVersion('12')).toBe(12);
    expect(streamVersion(null)).toBeNull();
    expect(streamVersion('')).toBeNull();
    expect(streamVersion('x-1')).toBeNull();
    expect(streamVersion('99999999999999999999-0')).toBeNull(); // past 2^53: no version
  });

  it('asks the reads at that version for an offer, and for a report with its Divan', () => {
    expect(announced('offer_received', { type: 'offer_received', divan: 3, from: 2, kind: 'pact' }, '12-0')).toEqual({ divan: null, version: 12 });
    expect(announced('offer_withdrawn', { divan: 3, from: 2 }, '13-1')).toEqual({ divan: null, version: 13 });
    expect(announced('offer_answered', { divan: 3, to: 2, answer: 'accepted' }, '14-0.c2')).toEqual({ divan: null, version: 14 });
    expect(announced('divan_report', { type: 'divan_report', divan: 2 }, '20-0')).toEqual({ divan: 2, version: 20 });
    expect(announced('private_report', { divan: 2 }, '20-1')).toEqual({ divan: 2, version: 20 });
    expect(announced('kurultay_report', { type: 'kurultay_report' }, '30-0')).toEqual({ divan: null, version: 30 });
    expect(announced('season_over', { han: 1 }, '30-1')).toEqual({ divan: null, version: 30 });
    expect(announced('offer_received', {}, null)).toEqual({ divan: null, version: null }); // no id: read as before
  });

  it('asks no season read for the rest', () => {
    expect(announced('ready', { channels: 2 }, '12')).toBeNull();
    expect(announced('betrayals', { divan: 2, betrayals: [] }, '20-2')).toBeNull();
    expect(announced('chat_message', { channel_id: 'all', message_id: 'm' }, '12-0.c3')).toBeNull();
  });

  it('is not shown from a read side behind the offer, and asks it at that version', () => {
    const asks = announced('offer_received', { divan: 3 }, '12-0')!;
    const at = askAt(asks.version, 12); // the status (the store) holds 12
    expect(at).toBe(12);
    expect(caughtUp(reads({ map: 11, me: 11, reports: 11, leaderboard: 11, titles: 11 }), at, asks.divan)).toBe(false);
    expect(caughtUp(reads({ map: 12, me: 12, reports: 12, leaderboard: 12, titles: 12 }), at, asks.divan)).toBe(true);
  });

  it('never asks a version past the store\'s (422, not a wait)', () => {
    expect(askAt(12, 10)).toBe(10);
    expect(askAt(null, 10)).toBeNull();
  });
});

describe('the "server is catching up" notice of a refresh (ui/season.ts)', () => {
  afterEach(() => vi.useRealTimers());
  const TEXT = 'Sunucu son durumu hazırlıyor, bekleniyor…';

  /** A refresh as ui/season.ts runs it: the reads asked every 300 ms, a 503 `not_yet_projected`
   * until the read side catches up `lagMs` later, the notice on the status line's stack. */
  async function refreshWithLag(lagMs: number, stack: NoticeStack, seen: (at: number, texts: string[]) => void) {
    const start = Date.now();
    const lag = catchingUp(
      () => stack.add(TEXT, Date.now(), 'info', 'catching-up'),
      () => stack.dismissKey('catching-up', TEXT),
    );
    const read = async () => {
      if (Date.now() - start < lagMs) throw new ApiProblem(503, 'not_yet_projected', '', {}, null);
      return 'reads';
    };
    try {
      for (;;) {
        try {
          return await read();
        } catch (e) {
          if (!notYet(e)) throw e;
          lag.behind();
          seen(Date.now() - start, stack.list().map((n) => n.text));
          await new Promise((r) => setTimeout(r, 300));
        }
      }
    } finally {
      lag.done();
    }
  }

  it('appears after 1.5 s of a lagging read side, and goes once the reads answer', async () => {
    vi.useFakeTimers();
    const stack = new NoticeStack();
    const seen: [number, string[]][] = [];
    const done = refreshWithLag(2_500, stack, (at, texts) => seen.push([at, texts]));
    await vi.advanceTimersByTimeAsync(CATCHING_UP_MS - 1);
    expect(stack.list().map((n) => n.text)).toEqual([]); // not before 1.5 s
    await vi.advanceTimersByTimeAsync(1);
    expect(stack.list().map((n) => n.text)).toEqual([TEXT]);
    await vi.advanceTimersByTimeAsync(1_200);
    expect(await done).toBe('reads');
    expect(stack.list()).toEqual([]); // taken back once the reads answered
    expect(seen.filter(([at]) => at >= CATCHING_UP_MS).every(([, texts]) => texts.includes(TEXT))).toBe(true);
  });

  it('never appears when the read side catches up within 1.5 s', async () => {
    vi.useFakeTimers();
    const stack = new NoticeStack();
    const done = refreshWithLag(1_000, stack, () => undefined);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(await done).toBe('reads');
    expect(stack.list()).toEqual([]);
  });

  it('counts from the first lag, once, and leaves a later notice of its key alone', async () => {
    vi.useFakeTimers();
    const said: string[] = [];
    const lag = catchingUp(() => said.push('say'), () => said.push('unsay'));
    lag.behind();
    await vi.advanceTimersByTimeAsync(1_000);
    lag.behind(); // another round behind: the clock is not restarted
    await vi.advanceTimersByTimeAsync(500);
    expect(said).toEqual(['say']);
    lag.done();
    lag.behind(); // after the refresh: nothing more
    await vi.advanceTimersByTimeAsync(5_000);
    expect(said).toEqual(['say', 'unsay']);
    const stack = new NoticeStack();
    stack.add('other', 0, 'info', 'catching-up');
    stack.dismissKey('catching-up', TEXT); // unsay takes back its own text only
    expect(stack.list().map((n) => n.text)).toEqual(['other']);
  });
});
