// Home: start a trial season (pick a memleket on the map or in the list), the seasons saved on
// this device, and a season opened by its link.
import { api, ApiProblem } from '../api/client';
import { t } from '../i18n';
import { forgetSeason, loadSeasons, saveSeason, seasonFromLink } from '../logic/storage';
import { loadBoard, namesOf } from './board';
import { h } from './dom';
import { ProvinceMap } from './map';
import { playerCard } from './player';

export function problemText(e: unknown): string {
  if (e instanceof ApiProblem) return `${e.detail} (${e.code})`;
  return t('offline');
}

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
      .createTrial(picked)
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
  const linkForm = h(
    'form',
    { class: 'card', 'aria-labelledby': 'by-link' },
    h('h2', { id: 'by-link' }, t('openByLink')),
    h('label', { for: 'link' }, t('seasonLink')),
    ' ',
    link,
    ' ',
    h('button', { type: 'submit' }, t('open')),
  );
  linkForm.addEventListener('submit', (e) => {
    e.preventDefault();
    const id = seasonFromLink(link.value);
    if (id) location.hash = `#/s/${id}`;
  });

  main.replaceChildren(h('p', { class: 'tagline' }, t('tagline')), mine, form, playerCard(), linkForm);
  void loadBoard().catch(() => undefined); // warm the board for the season screen
  return () => undefined;
}
