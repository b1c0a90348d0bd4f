// The player (issue 23, ADR-89): on the home screen, become a player (a name is optional), keep
// the key shown once, open the record; the record screen `#/p/<player_id>`.
import { api } from '../api/client';
import { t } from '../i18n';
import { forgetPlayer, loadPlayer, savePlayer } from '../logic/storage';
import { h } from './dom';
import { problemText } from './problem';

export function playerCard(): HTMLElement {
  const card = h('section', { class: 'card', 'aria-labelledby': 'player-h' });
  const error = h('p', { class: 'error', role: 'alert' });

  function render(): void {
    const me = loadPlayer(localStorage);
    const title = h('h2', { id: 'player-h' }, t('player'));
    if (me === null) {
      const name = h('input', { id: 'player-name', name: 'player-name', type: 'text', maxlength: 24, autocomplete: 'nickname' }) as HTMLInputElement;
      const form = h(
        'form',
        {},
        h('p', {}, t('playerIntro')),
        h('label', { for: 'player-name' }, t('playerName')),
        ' ',
        name,
        ' ',
        h('button', { type: 'submit' }, t('becomePlayer')),
        error,
      );
      form.addEventListener('submit', (e) => {
        e.preventDefault();
        error.textContent = '';
        const chosen = name.value.trim() || null;
        api
          .createPlayer(chosen)
          .then((made) => {
            savePlayer(localStorage, { id: made.player_id, key: made.player_key, name: chosen, kept: false });
            render();
          })
          .catch((err: unknown) => {
            error.textContent = problemText(err);
          });
      });
      card.replaceChildren(title, form);
      return;
    }
    const parts: (HTMLElement | string)[] = [title];
    if (!me.kept) {
      // offered once: the key is shown until the player says it is kept
      const key = h('input', { id: 'player-key', type: 'text', readonly: true, value: me.key }) as HTMLInputElement;
      parts.push(
        h('label', { for: 'player-key' }, t('keepKey')),
        ' ',
        key,
        ' ',
        h(
          'button',
          {
            type: 'button',
            onclick: () => {
              savePlayer(localStorage, { ...me, kept: true });
              render();
            },
          },
          t('keptKey'),
        ),
      );
    }
    parts.push(
      h('p', {}, h('a', { href: `#/p/${me.id}` }, `${t('yourRecord')}${me.name ? ` · ${me.name}` : ''}`)),
      h(
        'button',
        {
          type: 'button',
          class: 'quiet',
          onclick: () => {
            if (!window.confirm(t('leaveConfirm'))) return;
            api
              .leavePlayer(me.id, me.key)
              .then(() => {
                forgetPlayer(localStorage);
                render();
              })
              .catch((err: unknown) => {
                error.textContent = problemText(err);
              });
          },
        },
        t('leavePlayer'),
      ),
      error,
    );
    card.replaceChildren(...parts);
  }
  render();
  return card;
}

export function playerScreen(main: HTMLElement, id: string): () => void {
  const box = h('section', { class: 'card', 'aria-labelledby': 'record-h' }, h('h1', { id: 'record-h' }, t('record')));
  main.replaceChildren(box);
  api
    .player(id)
    .then((r) => {
      const row = (label: string, value: string | number) => h('li', {}, `${label}: ${value}`);
      box.append(
        h('p', {}, r.name ?? id.slice(0, 8)),
        h(
          'ul',
          {},
          row(t('seasonsPlayed'), r.seasons_played),
          row(t('seasonsFinished'), r.seasons_finished),
          row(t('hanTitles'), r.han_titles),
          row(t('hainTimes'), r.hain),
          row(t('divansMissed'), `${r.divans_missed} / ${r.divans_played}`),
          row(t('rating'), r.rating ? r.rating.ordinal.toFixed(1) : t('noRating')),
        ),
        h(
          'ul',
          {},
          ...r.places.map((p) =>
            h('li', {}, h('a', { href: `#/s/${p.season_id}` }, `${t('season')} ${p.season_id.slice(0, 8)}`), ` · ${t('place', { place: p.place })} · ${p.score}`),
          ),
        ),
      );
    })
    .catch((err: unknown) => {
      box.append(h('p', { class: 'error', role: 'alert' }, problemText(err)));
    });
  return () => undefined;
}
