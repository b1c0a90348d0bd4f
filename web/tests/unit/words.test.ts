// The server's words the client says (logic/words.ts, api/words.json generated from the
// catalogue; ADR-157, ADR-170). Probe (session 24): the battle cards said "alındı / tutuldu /
// denge" beside report lines saying "düştü / direndi / kimse alamadı" for the same battles.
import { describe, expect, it } from 'vitest';
import { outcomeWord, whyWord } from '../../src/logic/words';

describe('the catalogue\'s words', () => {
  it('say a battle\'s outcome as the Divan report does, in both languages', () => {
    expect(['taken', 'held', 'standoff'].map((o) => outcomeWord(o, 'tr'))).toEqual(['düştü', 'direndi', 'kimse alamadı']);
    expect(['taken', 'held', 'standoff'].map((o) => outcomeWord(o, 'en'))).toEqual(['fell', 'held', 'standoff']);
  });

  it('say why an order did nothing; nothing for a code they do not hold', () => {
    expect(whyWord('not_owned', 'tr')).toBe('il artık o beyin değil');
    expect(whyWord('void_support', 'en')).toBe("nothing to support: no defence, no ally's attack");
    expect(whyWord('toString', 'tr')).toBeNull(); // never an object's own property
    expect(outcomeWord('none', 'tr')).toBeNull();
  });
});
