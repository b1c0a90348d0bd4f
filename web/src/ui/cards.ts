// Parts of the Divan report drawn apart from the season screen: the news card and a
// battle in full. Text only, through dom.ts.
import type { Battle, Board, Report } from '../api/client';
import { lang, t } from '../i18n';
import { outcomeWord } from '../logic/words';
import { battleDetail } from '../logic/battle';
import { deckLeft, type NewsCard } from '../logic/news';
import { h } from './dom';

const text = (x: { tr: string; en: string }) => (lang() === 'tr' ? x.tr : x.en);

/** The shown Divan's news card: its name, where it fell, its effect, and the deck left. */
export function newsCardEl(
  card: NewsCard | null,
  board: Board,
  reports: readonly Report[],
  nameOf: (p: number) => string,
  beyName: (seat: number) => string = (n) => t('bey', { n }),
): HTMLElement {
  const deck = deckLeft(reports, board.news);
  const parts: (HTMLElement | null)[] = [h('h3', { id: 'news-h' }, t('newsCard'))];
  if (!card) {
    parts.push(h('p', {}, t('newsNone')));
  } else {
    // a card the board does not list is shown as the server's line, as text
    parts.push(h('p', { class: 'name', 'data-card': card.card ?? '' }, card.name ? text(card.name) : text(card.line)));
    const where = card.region ?? (card.province !== null ? nameOf(card.province) : card.seat !== null ? beyName(card.seat) : null);
    if (where !== null) parts.push(h('p', { class: 'where' }, t('newsWhere', { w: where })));
    if (card.effect) parts.push(h('p', { class: 'effect' }, text(card.effect)));
  }
  parts.push(h('p', { class: 'small deck' }, t('newsDeck', { n: deck.left, m: deck.total })));
  return h('section', { class: 'news-card', 'aria-labelledby': 'news-h' }, ...parts.filter((p): p is HTMLElement => p !== null));
}

/** One battle: the headline, then every group, the defence, the dice and the result. */
export function battleItem(b: Battle, nameOf: (p: number) => string, beyName: (seat: number) => string = (n) => t('bey', { n })): HTMLElement {
  return h(
    'li',
    { 'data-target': b.target },
    t('battleLine', {
      t: nameOf(b.target),
      d: b.defender === null ? t('milis') : beyName(b.defender),
      du: b.defender_units,
      o: outcomeWord(b.outcome, lang()) ?? b.outcome, // the report's word (logic/words.ts)
    }),
    ...battleDetail(b, nameOf, beyName).map((line) => h('div', { class: 'small detail' }, line)),
  );
}
