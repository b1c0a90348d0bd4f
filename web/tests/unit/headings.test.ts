// Each card of the season screen has a title of its own (docs/web.md "Season"): a player, or a
// screen reader listing the headings, tells the cards apart by them. The picked province's
// panel and the order set were both "Emirler". Read from the source: every `h('h2', …, t('key')`
// of ui/season.ts names a different key, and no two of those keys say the same in a language.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tIn, type Key } from '../../src/i18n';

const SEASON = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'ui', 'season.ts');

function cardTitles(): Key[] {
  const source = readFileSync(SEASON, 'utf8');
  return [...source.matchAll(/h\('h2', \{[^}]*\}, t\('(\w+)'/g)].map((m) => m[1] as Key);
}

describe('the season screen’s card titles', () => {
  it('are found', () => {
    expect(cardTitles().length).toBeGreaterThan(8);
  });

  it('name each card once, in both languages', () => {
    // one card may draw its title in more than one place (the panel: nothing picked, no Divan
    // left); two cards may not share one
    const byCard = new Map<string, Set<Key>>();
    const source = readFileSync(SEASON, 'utf8');
    const found = [
      // a title without an id: the card is the element it is drawn into
      ...source.matchAll(/(\w+)\.replaceChildren\(\s*h\('h2', \{\}, t\('(\w+)'/g),
      // a title with an id: the card is the one its `<card>-h` names
      ...source.matchAll(/h\('h2', \{ id: '(\w+)-h' \}, t\('(\w+)'/g),
    ];
    for (const m of found) {
      const card = m[1] as string;
      byCard.set(card, (byCard.get(card) ?? new Set()).add(m[2] as Key));
    }
    expect(byCard.size).toBeGreaterThan(7);
    for (const lang of ['tr', 'en'] as const) {
      const owner = new Map<string, string>();
      for (const [card, keys] of byCard) {
        for (const key of keys) {
          const text = tIn(key, lang, { p: '' }).replace(/[:\s]+$/, '');
          expect(owner.get(text) ?? card, `"${text}" titles ${owner.get(text)} and ${card}`).toBe(card);
          owner.set(text, card);
        }
      }
    }
  });
});
