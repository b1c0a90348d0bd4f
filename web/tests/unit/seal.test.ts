// The private report's seal line (ADR-57) in words for players (docs/web.md "Season"): its text
// showed the raw salt and digest hex. The words carry no hex; the salt and digest stay
// available apart, for those who verify.
import { describe, expect, it } from 'vitest';
import { sealWords } from '../../src/logic/seal';

const salt = 'a'.repeat(64);
const digest = '0f'.repeat(32);
const line = {
  kind: 'orders_sealed',
  data: { divan: 3, salt, digest },
  tr: `3. Divan emirleriniz mühürlendi: tuz ${salt}, özet ${digest}`,
  en: `Your orders for Divan 3 were sealed: salt ${salt}, digest ${digest}`,
};

describe('the seal line', () => {
  it('is said in words, with no hex, in both languages', () => {
    for (const lang of ['tr', 'en'] as const) {
      const seal = sealWords(line, lang);
      expect(seal).not.toBeNull();
      expect(seal?.words).not.toMatch(/[0-9a-f]{16}/);
      expect(seal?.words).toMatch(lang === 'tr' ? /3\. Divan emirlerin kilitte mühürlendi/ : /orders for Divan 3 were sealed at the lock/);
    }
  });

  it('keeps the salt and the digest for those who verify', () => {
    expect(sealWords(line, 'en')).toMatchObject({ salt, digest });
  });

  it('leaves every other line as it is', () => {
    expect(sealWords({ kind: 'offer', data: {} }, 'tr')).toBeNull();
    expect(sealWords({ kind: 'orders_sealed', data: { seat: 3, digest } }, 'tr')).toBeNull(); // the public form
  });
});
