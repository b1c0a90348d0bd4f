// Spending as RULES.md allows it: costs, once-per-province sur, the 12-unit cap,
// purchases of unowned neighbours with milis ≤ 2 only.
import { describe, expect, it } from 'vitest';
import { canHire, canSur, COST, purchasable } from '../../src/logic/spend';

const neighbours = new Map<number, number[]>([[6, [71, 14, 18, 26]]]);
const map = {
  '6': { owner: 1, units: 6, sur: false },
  '71': { owner: null, milis: 2 },
  '14': { owner: null, milis: 3 },
  '18': { owner: 2, units: 3 },
  '26': { owner: null, milis: 1 },
  '7': { owner: 1, units: 11, sur: true },
};

describe('spending (R-7.9)', () => {
  it('costs 3 for a sur, 2 for paralı asker, 4 for satın alma', () => {
    expect(COST).toEqual({ sur: 3, paralı_asker: 2, satın_alma: 4 });
  });
  it('builds a sur once, in an own province, when gold allows', () => {
    expect(canSur(map, 1, 6, 3)).toBe(true);
    expect(canSur(map, 1, 6, 2)).toBe(false);
    expect(canSur(map, 1, 7, 9)).toBe(false); // one already
    expect(canSur(map, 1, 18, 9)).toBe(false); // not own
  });
  it('hires paralı asker only while the province stays within 12 units', () => {
    expect(canHire(map, 1, 6, 2)).toBe(true);
    expect(canHire(map, 1, 6, 1)).toBe(false);
    expect(canHire(map, 1, 7, 9)).toBe(false); // 11 + 2 > 12
  });
  it('buys only unowned neighbours with milis ≤ 2', () => {
    expect(purchasable(neighbours, map, 1, 6)).toEqual([26, 71]);
    expect(purchasable(neighbours, map, 2, 6)).toEqual([]);
  });
});
