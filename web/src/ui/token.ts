// The token screen (issue 22, docs/web.md "The token"): the token is the player's only key, so
// it is offered once, right after the season is started or joined (and after a renewal), in a
// dialog: the key as text, a copy button, its QR code drawn as SVG, and the plain statement of
// what is kept (no account, e-mail or location; a name only if chosen, and public). The season screen's key card renews the key
// (POST /v1/seasons/{id}/token: the old one stops working at once) and offers the new one once.
import { api } from '../api/client';
import { keyLink } from '../logic/keys';
import { findSeason, saveSeason, type Saved } from '../logic/storage';
import { tx } from '../pwa/texts';
import { problemText } from './home';
import { h, s } from './dom';

// The encoder is loaded only when a key is shown (its own chunk): the first load stays small.
async function qrSvg(token: string): Promise<SVGSVGElement> {
  const { qrPath } = await import('../logic/qr');
  const qr = qrPath(token);
  return s(
    'svg',
    {
      class: 'qr',
      viewBox: `0 0 ${qr.size} ${qr.size}`,
      role: 'img',
      'aria-label': tx('qrLabel'),
      'shape-rendering': 'crispEdges',
    },
    s('rect', { width: qr.size, height: qr.size, fill: '#fff' }),
    s('path', { d: qr.d, fill: '#000' }),
  );
}

/** Where the focus goes when a dialog closes and it fell to the page (the same rule for every
 * dialog): back to the control that opened it, if it is still there and enabled; else nowhere
 * here (the caller's `done` names the place, e.g. the season's heading). Probe (session 24):
 * after a renewal the new key's dialog left the focus on <body>. */
function giveBack(opener: Element | null): void {
  const fell = !document.activeElement || document.activeElement === document.body || !document.activeElement.isConnected;
  if (!fell || !(opener instanceof HTMLElement) || opener === document.body || !opener.isConnected) return;
  if ('disabled' in opener && opener.disabled) return;
  opener.focus();
}

/** A modal dialog; `opener` is the control the focus goes back to when it closes (by default
 * the one that had the focus when it opened). */
function modal(labelledBy: string, opener: Element | null, ...children: Node[]): HTMLDialogElement {
  const back = opener ?? document.activeElement;
  const dialog = h('dialog', { class: 'dialog', 'aria-labelledby': labelledBy }, ...children);
  dialog.addEventListener('close', () => {
    dialog.remove();
    giveBack(back);
  });
  document.body.append(dialog);
  dialog.showModal();
  return dialog;
}

function copyButton(id: string, value: string, label: string, status: HTMLElement): HTMLButtonElement {
  const button = h('button', { type: 'button', id }, label);
  button.addEventListener('click', () => {
    const write = navigator.clipboard?.writeText(value) ?? Promise.reject(new Error('no clipboard'));
    write.then(
      () => (status.textContent = tx('copied')),
      () => (status.textContent = tx('copyFailed')),
    );
  });
  return button;
}

/**
 * The key offered for safe keeping, once; `done` runs when the player closes it. With `admin`
 * (right after a live season is opened), the season-admin key the entry keeps is offered too.
 * Closed, the focus goes back to `opener` (by default what had it when it opened) if it fell
 * to the page; `done` may place it elsewhere when that control is gone.
 */
export function showToken(saved: Saved, done: () => void = () => undefined, admin = false, opener: Element | null = null): HTMLDialogElement {
  const copied = h('p', { class: 'small', role: 'status' });
  const code = h('code', { class: 'tok', id: 'token-text', 'aria-label': tx('tokenLabel') }, saved.token);
  const copy = copyButton('token-copy', saved.token, tx('copy'), copied);
  const close = h('button', { type: 'button', class: 'primary', id: 'token-kept' }, tx('kept'));
  const qrBox = h('div', { class: 'qrbox' });
  const adminKey = admin && saved.admin ? saved.admin : null;
  const adminCopied = h('p', { class: 'small', role: 'status' });
  const dialog = modal(
    'token-h',
    opener,
    h('h2', { id: 'token-h' }, tx('tokenTitle')),
    h('p', {}, tx('tokenOnce')),
    code,
    h('div', { class: 'actions' }, copy, close),
    copied,
    qrBox,
    ...(adminKey
      ? [
          h('h3', { id: 'admin-token-h' }, tx('adminTitle')),
          h('p', {}, tx('adminOnce')),
          h('code', { class: 'tok', id: 'admin-token-text', 'aria-label': tx('adminLabel') }, adminKey),
          h('div', { class: 'actions' }, copyButton('admin-token-copy', adminKey, tx('copyAdmin'), adminCopied)),
          adminCopied,
        ]
      : []),
    h('p', { class: 'privacy', id: 'nothing-stored' }, tx('nothingStored')),
  );
  // the QR code holds the app's address with the key (#/k/…): scanned, it opens the seat there
  void qrSvg(keyLink(location.href, saved.token)).then(
    (svg) => qrBox.replaceChildren(svg),
    () => qrBox.remove(), // offline before the encoder was cached: the text and copy remain
  );
  dialog.addEventListener('close', done);
  close.addEventListener('click', () => dialog.close());
  close.focus();
  return dialog;
}

function confirmRenewal(): Promise<boolean> {
  return new Promise((resolve) => {
    const no = h('button', { type: 'button', id: 'rotate-no' }, tx('cancel'));
    const yes = h('button', { type: 'button', class: 'primary', id: 'rotate-yes' }, tx('yes'));
    const dialog = modal(
      'rotate-h',
      null,
      h('h2', { id: 'rotate-h' }, tx('rotate')),
      h('p', {}, tx('rotateConfirm')),
      h('div', { class: 'actions' }, no, yes),
    );
    let answer = false;
    no.addEventListener('click', () => dialog.close());
    yes.addEventListener('click', () => {
      answer = true;
      dialog.close();
    });
    dialog.addEventListener('close', () => resolve(answer));
    no.focus();
  });
}

/**
 * The season screen's key card: the statement of what is kept about the player, and the
 * renewal. `renewed` runs with the new entry once the new key is saved and has been offered
 * (the season screen is drawn anew with it: its renewal button, `#token-rotate`, takes the
 * focus there). While the renewal is sent the button is disabled, and its focus fell to the
 * page: the new key's dialog gives it back to the button, as a refusal does.
 */
export function keyCard(saved: Saved, renewed: (next: Saved) => void): HTMLElement {
  const error = h('p', { class: 'error', role: 'alert' });
  const status = h('p', { class: 'small', role: 'status' });
  const rotate = h('button', { type: 'button', id: 'token-rotate' }, tx('rotate'));
  rotate.addEventListener('click', () => {
    void confirmRenewal().then(async (yes) => {
      if (!yes) return;
      rotate.disabled = true;
      error.textContent = '';
      try {
        const current = findSeason(localStorage, saved.season) ?? saved;
        const out = await api.rotateToken(saved.season, current.token);
        const next: Saved = { ...current, token: out.token };
        saveSeason(localStorage, next);
        status.textContent = tx('rotated', { seat: out.seat });
        showToken(next, () => renewed(next), false, rotate);
      } catch (e) {
        error.textContent = problemText(e);
      } finally {
        rotate.disabled = false;
        giveBack(rotate); // refused: disabled while sent, the button lost the focus to the page
      }
    });
  });
  return h(
    'section',
    { class: 'card keycard', 'aria-labelledby': 'key-h' },
    h('h2', { id: 'key-h' }, tx('keyCard')),
    h('p', { class: 'privacy' }, tx('nothingStored')),
    h('p', { class: 'small' }, tx('rotateWhy')),
    rotate,
    status,
    error,
  );
}
