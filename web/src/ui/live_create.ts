// Home's "open a live season" card (issue 24): the creator's memleket, when registration closes
// (the device's time), the press mode (full by default, public only, none) and an optional name.
// The creator joins with the memleket, so the season is saved on this device like a join.
import { api } from '../api/client';
import { lang, t } from '../i18n';
import { closeWords, liveBody, localInput, PRESS_MODES, type Press } from '../logic/press';
import { saveSeason } from '../logic/storage';
import { h } from './dom';
import { nameField, problemText } from './home';
import { ProvinceMap } from './map';

const PRESS_TEXT = { full: 'pressOptFull', public: 'pressOptPublic', none: 'pressOptNone' } as const;

export function liveCreateCard(): HTMLElement {
  const memleket = h('select', { id: 'live-memleket', name: 'memleket', required: true }) as HTMLSelectElement;
  memleket.append(h('option', { value: '' }, '—'));
  for (const [plate, name] of [...ProvinceMap.names()].sort((a, b) => a[0] - b[0])) {
    memleket.append(h('option', { value: plate }, `${plate} ${name}`));
  }
  const closes = h('input', { id: 'live-closes', name: 'closes', type: 'datetime-local', required: true, value: localInput(new Date(), 24), 'aria-describedby': 'live-closes-when' }) as HTMLInputElement;
  // the close said in words beside the field: the player's time and Istanbul's, never ISO
  const when = h('span', { id: 'live-closes-when', class: 'small when', 'aria-live': 'polite' });
  const sayWhen = () => (when.textContent = closeWords(closes.value, lang()) ?? '');
  closes.addEventListener('input', sayWhen);
  sayWhen();
  const press = h('select', { id: 'live-press', name: 'press' }, ...PRESS_MODES.map((p) => h('option', { value: p }, t(PRESS_TEXT[p])))) as HTMLSelectElement;
  press.value = 'full';
  const name = nameField('live-name');
  const error = h('p', { class: 'error', role: 'alert' });
  const submit = h('button', { type: 'submit' }, t('openLive'));
  const form = h(
    'form',
    { class: 'card live-create', 'aria-labelledby': 'new-live' },
    h('h2', { id: 'new-live' }, t('newLive')),
    h('p', {}, h('label', { for: 'live-memleket' }, t('memleket')), ' ', memleket),
    h('p', {}, h('label', { for: 'live-closes' }, t('liveCloses')), ' ', closes, ' ', when),
    h('p', {}, h('label', { for: 'live-press' }, t('pressLabel')), ' ', press),
    h('p', {}, name.label, ' ', name.input, ' ', name.hint),
    submit,
    error,
  ) as HTMLFormElement;
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const plate = Number(memleket.value);
    const body = plate ? liveBody(plate, closes.value, press.value as Press, name.input.value.trim() || null) : null;
    if (!body) return;
    submit.setAttribute('disabled', '');
    error.textContent = '';
    api
      .createLive(body)
      .then((created) => {
        // the creator's seat (a memleket was given) and the season-admin token, kept beside it
        // on this device only (the season screen's admin card uses it)
        const seat = created.creator;
        if (seat) saveSeason(localStorage, { season: created.season_id, seat: seat.seat, memleket: plate, token: seat.token, mode: 'live', saved: Date.now(), admin: created.admin_token });
        sessionStorage.setItem('seksenbir.fresh', created.season_id);
        location.hash = `#/s/${created.season_id}`;
      })
      .catch((err: unknown) => {
        error.textContent = problemText(err);
        submit.removeAttribute('disabled');
      });
  });
  return form;
}
