// The client's order logic against RULES.md R-4 (what is legal to order) and R-4.2 (the clamp).
import { describe, expect, it } from 'vitest';
import {
  clamp,
  dropOrder,
  faultyProvince,
  legalTargets,
  maxSent,
  orderCount,
  ownProvinces,
  parseUnits,
  putOrder,
  toRequest,
  type Draft,
} from '../../src/logic/orders';

// Ankara (6) and some of its neighbours, as GET /board gives them
const neighbours = new Map<number, number[]>([
  [6, [71, 14, 18, 26, 40, 42, 68]],
  [71, [6, 18, 19, 40, 66]],
  [14, [6, 18, 54, 67, 78, 81, 26]],
]);
const map = {
  '6': { owner: 1, units: 6 },
  '71': { owner: 1, units: 1 },
  '14': { owner: 2, units: 3 },
  '18': { owner: null },
};

describe('legal targets (R-4.1, R-4.2)', () => {
  it('İlerle and Destek offer exactly the neighbours of an own province', () => {
    expect(legalTargets(neighbours, map, 1, 6, 'advance')).toEqual([14, 18, 26, 40, 42, 68, 71]);
    expect(legalTargets(neighbours, map, 1, 6, 'support')).toEqual([14, 18, 26, 40, 42, 68, 71]);
  });
  it('Bekle has no target', () => {
    expect(legalTargets(neighbours, map, 1, 6, 'hold')).toEqual([]);
  });
  it('nothing is offered from a province the bey does not own', () => {
    expect(legalTargets(neighbours, map, 1, 14, 'advance')).toEqual([]);
    expect(legalTargets(neighbours, map, 1, 18, 'advance')).toEqual([]);
    expect(legalTargets(neighbours, map, 1, 999, 'advance')).toEqual([]);
  });
  it('a province with one unit cannot send any (the clamp would make it nothing)', () => {
    expect(legalTargets(neighbours, map, 1, 71, 'advance')).toEqual([]);
  });
});

describe('the clamp to units − 1 (R-4.2, R-2.5)', () => {
  it('keeps one unit at home and never more than 12', () => {
    expect(maxSent(6)).toBe(5);
    expect(maxSent(1)).toBe(0);
    expect(maxSent(0)).toBe(0);
    expect(maxSent(17)).toBe(12);
  });
  it('says when the asked number is clamped', () => {
    expect(clamp(6, 12)).toEqual({ sent: 5, clamped: true });
    expect(clamp(6, 5)).toEqual({ sent: 5, clamped: false });
    expect(clamp(6, 2)).toEqual({ sent: 2, clamped: false });
  });
  it('takes only whole numbers 1 … 12 as N', () => {
    expect(parseUnits('4')).toBe(4);
    expect(parseUnits(' 12 ')).toBe(12);
    for (const bad of ['0', '13', '-1', '2.5', '1e1', '', 'abc', '٣']) expect(parseUnits(bad)).toBeNull();
  });
});

describe('the order set (R-4.1)', () => {
  const a: Draft = { province: 6, kind: 'advance', target: 71, units: 4 };
  it('holds one order per province: the newer replaces the older', () => {
    const set = putOrder(putOrder([], a), { province: 6, kind: 'hold', target: null, units: 0 });
    expect(set).toEqual([{ province: 6, kind: 'hold', target: null, units: 0 }]);
    expect(dropOrder(set, 6)).toEqual([]);
  });
  it('counts orders among the provinces owned ("1 / 2")', () => {
    const own = ownProvinces(map, 1);
    expect(own).toEqual([6, 71]);
    expect(orderCount([a], own)).toEqual({ given: 1, of: 2 });
    expect(orderCount([{ ...a, province: 14 }], own)).toEqual({ given: 0, of: 2 });
  });
  it('sends holds without a target, and drops orders for provinces lost meanwhile', () => {
    const set = [a, { province: 71, kind: 'hold' as const, target: null, units: 0 }, { ...a, province: 14 }];
    expect(toRequest(set, [6, 71])).toEqual([
      { province: 6, kind: 'advance', target: 71, units: 4 },
      { province: 71, kind: 'hold' },
    ]);
  });
  it('finds the order a refusal names, by province or by its JSON path', () => {
    const sent = [{ province: 6 }, { province: 71 }];
    expect(faultyProvince({ province: 71 }, sent)).toBe(71);
    expect(faultyProvince({ field: '$.orders[1].units' }, sent)).toBe(71);
    expect(faultyProvince({ field: '$.orders[7]' }, sent)).toBeNull();
    expect(faultyProvince({}, sent)).toBeNull();
  });
});
