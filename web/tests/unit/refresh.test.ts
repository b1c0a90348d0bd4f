// The season screen's refresh (ui/season.ts): a command's effect is shown once every read has
// projected the version it was stored at — the five reads are answered apart, so the map may be
// at it while the bey's own view is not yet (the trial e2e's offer missing from the list).
import { describe, expect, it } from 'vitest';
import type { Schemas } from '../../src/api/client';
import { caughtUp, type SeasonReads } from '../../src/logic/refresh';

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
