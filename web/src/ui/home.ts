// Home: start a trial season (pick a memleket on the map or in the list), the seasons saved on
// this device, and a season opened by its link.
import { api } from '../api/client';
import { lang, t } from '../i18n';
import { bothTimes } from '../logic/format';
import { forgetSeason, loadSeasons, saveSeason, seasonFromLink } from '../logic/storage';
import { loadBoard, namesOf } from './board';
import { h } from './dom';
import { ProvinceMap } from './map';
import { playerCard } from './player';
import { liveCreateCard } from './live_create';
import { keysCard } from './keys';
import { problemText } from './problem';

export { problemText };

export function homeScreen(main: HTMLElement): () => void {
  let picked: number | null = null;
  const select = h('select', { id: 'memleket', name: 'memleket' }) as HTMLSelectElement;
  const startBtn = h('button', { type: 'submit', class: 'primary', disabled: true }, t('start'));
  const error = h('p', { class: 'error', role: 'alert' });
  const map = new ProvinceMap((plate) => pick(plate));
  function pick(plate: number): void {
    picked = plate;
    select.value = String(plate);
    startBtn.disabled = false;
    map.highlight(plate, []);
  }
  select.addEventListener('change', () => pick(Number(select.value)));
  const nameInput = nameField('trial-name');
  select.append(h('option', { value: '' }, '—'));
  for (const [plate, name] of [...ProvinceMap.names()].sort((a, b) => a[0] - b[0])) {
    select.append(h('option', { value: plate }, `${plate} ${name}`));
  }

  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': 'new-trial' },
    h('h2', { id: 'new-trial' }, t('newTrial')),
    h('p', {}, t('pickMemleket')),
    map.root,
    // the name first: from the memleket list, Tab reaches the start button (keyboard play)
    h('p', {}, nameInput.label, ' ', nameInput.input, ' ', nameInput.hint),
    h('label', { for: 'memleket' }, t('memleket')),
    ' ',
    select,
    ' ',
    startBtn,
    error,
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    if (picked === null) return;
    startBtn.disabled = true;
    error.textContent = '';
    api
      .createTrial(picked, nameInput.input.value.trim() || null)
      .then((created) => {
        saveSeason(localStorage, {
          season: created.season_id,
          seat: created.seat,
          memleket: picked ?? 0,
          token: created.token,
          mode: 'trial',
          saved: Date.now(),
        });
        sessionStorage.setItem('seksenbir.fresh', created.season_id);
        location.hash = `#/s/${created.season_id}`;
      })
      .catch((err: unknown) => {
        error.textContent = problemText(err);
        startBtn.disabled = false;
      });
  });

  const mine = h('section', { class: 'card', 'aria-labelledby': 'saved' });
  const names = ProvinceMap.names();
  function renderSaved(): void {
    const saved = loadSeasons(localStorage);
    mine.replaceChildren(
      h('h2', { id: 'saved' }, t('yourSeasons')),
      saved.length === 0
        ? h('p', {}, t('noSeasons'))
        : h(
            'ul',
            { class: 'saved' },
            ...saved.map((s) =>
              h(
                'li',
                {},
                h('a', { href: `#/s/${s.season}` }, `${t('season')} ${s.season.slice(0, 8)} · ${s.mode === 'trial' ? t('trial') : t('live')} · ${names.get(s.memleket) ?? s.memleket}`),
                ' ',
                h(
                  'button',
                  {
                    type: 'button',
                    class: 'quiet',
                    'aria-label': `${t('forget')}: ${s.season.slice(0, 8)}`,
                    onclick: () => {
                      forgetSeason(localStorage, s.season);
                      renderSaved();
                    },
                  },
                  t('forget'),
                ),
              ),
            ),
          ),
      h('p', { class: 'small' }, t('privacy')),
    );
  }
  renderSaved();

  const link = h('input', { id: 'link', name: 'link', type: 'text', autocomplete: 'off' }) as HTMLInputElement;
  const linkError = h('p', { class: 'error', role: 'alert', id: 'link-error', hidden: true });
  const linkForm = h(
    'form',
    { class: 'card', 'aria-labelledby': 'by-link' },
    h('h2', { id: 'by-link' }, t('openByLink')),
    h('label', { for: 'link' }, t('seasonLink')),
    ' ',
    link,
    ' ',
    h('button', { type: 'submit' }, t('open')),
    linkError,
  );
  linkForm.addEventListener('submit', (e) => {
    e.preventDefault();
    const id = seasonFromLink(link.value);
    // what is neither a link nor an id is said, not ignored (the form once did nothing)
    linkError.hidden = id !== null;
    linkError.textContent = id === null ? t('notALink') : '';
    if (id) location.hash = `#/s/${id}`;
  });

  const lobby = h('section', { class: 'card lobby', 'aria-labelledby': 'lobby-h' });
  void renderLobby(lobby);

  main.replaceChildren(h('p', { class: 'tagline' }, t('tagline')), mine, lobby, form, liveCreateCard(), playerCard(), linkForm, keysCard());
  void loadBoard().catch(() => undefined); // warm the board for the season screen
  return () => undefined;
}

/** An optional name field: label, input and its hint, tied by id. */
export function nameField(id: string): { label: HTMLElement; input: HTMLInputElement; hint: HTMLElement } {
  const input = h('input', {
    id,
    name: 'name',
    type: 'text',
    autocomplete: 'nickname',
    maxlength: 24,
    'aria-describedby': `${id}-hint`,
  }) as HTMLInputElement;
  return {
    label: h('label', { for: id }, t('yourName')),
    input,
    hint: h('span', { id: `${id}-hint`, class: 'small' }, t('nameHint')),
  };
}

/** The lobby (issue 23): listed live seasons open for registration, soonest close first, each
 * with its free seats, its calendar in both times, its creator's words (as text) and a way in:
 * the season's screen, where the join is (memleket first come, first served). */
async function renderLobby(box: HTMLElement, offset = 0, rows: HTMLElement[] = []): Promise<void> {
  const heading = h('h2', { id: 'lobby-h' }, t('lobby'));
  try {
    const page = await api.lobby(offset);
    for (const s of page.seasons) {
      const closes = bothTimes(s.registration_closes_at, lang());
      const first = s.first_divan_at ? bothTimes(s.first_divan_at, lang()) : null;
      rows.push(
        h(
          'li',
          { 'data-season': s.season_id },
          h('a', { href: `#/s/${s.season_id}` }, `${t('season')} ${s.season_id.slice(0, 8)}`),
          ' · ',
          t('freeSeats', { n: s.free_seats }),
          h('div', { class: 'small' }, t('whenLine', { what: t('closesAt'), local: closes.local, ist: closes.istanbul })),
          first ? h('div', { class: 'small' }, t('whenLine', { what: t('firstDivanAt'), local: first.local, ist: first.istanbul })) : null,
          s.description ? h('p', { class: 'description' }, s.description) : null,
          h('a', { href: `#/s/${s.season_id}`, class: 'button primary', 'aria-label': `${t('join')}: ${s.season_id.slice(0, 8)}` }, t('join')),
        ),
      );
    }
    const more =
      page.next_offset !== null && page.next_offset !== undefined
        ? h('button', { type: 'button', onclick: () => void renderLobby(box, page.next_offset ?? 0, rows) }, t('moreSeasons'))
        : null;
    const list = rows.length ? h('ul', { class: 'lobby-list' }, ...rows) : h('p', {}, t('lobbyEmpty'));
    box.replaceChildren(heading, list, ...(more ? [more] : []));
  } catch (e) {
    box.replaceChildren(heading, h('p', { class: 'error' }, problemText(e)));
  }
}
