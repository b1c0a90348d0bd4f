// Home's "open with a key from another device" card (docs/web.md "Keys from another device"):
// the season key the token screen showed — and, for a live season's creator, its admin key —
// pasted here (or read from the QR code) makes this device a second home for the seat. Each key
// is checked by the server before it is kept: the season key by the bey's own view (its seat
// and memleket), the admin key by the season admin's webhook list (read-only).
import { api } from '../api/client';
import { t } from '../i18n';
import { keysFromHash, parseKeys, type Keys } from '../logic/keys';
import { findSeason, saveSeason, type Saved } from '../logic/storage';
import { h } from './dom';
import { homeScreen, problemText } from './home';
import { notice } from './notice';

class KeyRefused extends Error {}

/** Keeps every key of `keys` on this device once the server took it; the season to open. */
export async function keepKeys(keys: Keys): Promise<string> {
  const kept: Saved[] = [];
  for (const k of keys.bey) {
    const [me, status] = await Promise.all([api.me(k.season, k.token), api.status(k.season)]);
    const before = findSeason(localStorage, k.season);
    const entry: Saved = { season: k.season, seat: me.seat, memleket: me.memleket, token: k.token, mode: status.mode === 'live' ? 'live' : 'trial', saved: Date.now() };
    if (before?.admin) entry.admin = before.admin;
    kept.push(entry);
  }
  for (const a of keys.admin) {
    const entry = kept.find((s) => s.season === a.season) ?? findSeason(localStorage, a.season);
    if (!entry) throw new KeyRefused(t('keysAdminAlone'));
    await api.webhooks(a.season, a.token); // 401 bad_token for a key the season does not keep
    entry.admin = a.token;
    if (!kept.includes(entry)) kept.push(entry);
  }
  for (const entry of kept) saveSeason(localStorage, entry);
  const first = kept[0];
  if (!first) throw new KeyRefused(t('keysNone'));
  return first.season;
}

export function keysCard(): HTMLElement {
  const text = h('textarea', { id: 'keys', name: 'keys', rows: 3, autocomplete: 'off', spellcheck: 'false', 'aria-describedby': 'keys-hint' }) as HTMLTextAreaElement;
  const submit = h('button', { type: 'submit' }, t('keysOpen'));
  const error = h('p', { class: 'error', role: 'alert' });
  const form = h(
    'form',
    { class: 'card keys', 'aria-labelledby': 'keys-h' },
    h('h2', { id: 'keys-h' }, t('useKeys')),
    h('label', { for: 'keys' }, t('keysLabel')),
    text,
    h('p', { class: 'small', id: 'keys-hint' }, t('keysHint')),
    submit,
    error,
  ) as HTMLFormElement;
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    error.textContent = '';
    const keys = parseKeys(text.value);
    if (!keys) {
      error.textContent = t('keysNone');
      return;
    }
    submit.setAttribute('disabled', '');
    keepKeys(keys)
      .then((season) => {
        text.value = '';
        location.hash = `#/s/${season}`;
      })
      .catch((err: unknown) => {
        error.textContent = err instanceof KeyRefused ? err.message : problemText(err);
      })
      .finally(() => submit.removeAttribute('disabled'));
  });
  return form;
}

/**
 * `#/k/<key>` (the token dialog's QR code, scanned): the key leaves the address at once (no
 * history entry keeps it), is kept as the card would keep it, and the seat opens; a refusal is
 * said on home. Returns the screen's leave function.
 */
export function keyRoute(main: HTMLElement): () => void {
  const keys = keysFromHash(location.hash);
  history.replaceState(null, '', `${location.pathname}${location.search}#/`);
  const leave = homeScreen(main);
  if (!keys) notice(t('keysNone'), 'error');
  else
    keepKeys(keys).then(
      (season) => (location.hash = `#/s/${season}`),
      (err: unknown) => notice(err instanceof KeyRefused ? err.message : problemText(err), 'error'),
    );
  return leave;
}
