// The season screen's admin card (docs/web.md "Season admin"): the creator of a live season,
// whose season-admin token this device kept when it opened the season (ui/live_create.ts),
// postpones registration, cancels before Divan 1, pauses and resumes — each with its reason,
// which the public report shows as written. A cancellation is confirmed first. The server
// decides; a refusal is shown with its code and detail.
import { api, type Status } from '../api/client';
import { t, type Key } from '../i18n';
import { adminActs, adminBody, type AdminAct } from '../logic/admin';
import { localInput } from '../logic/press';
import { h } from './dom';
import { problemText } from './home';

const LABEL: Record<AdminAct, Key> = { postpone: 'adminPostpone', cancel: 'adminCancel', pause: 'adminPause', resume: 'adminResume' };

export interface AdminCard {
  root: HTMLElement;
  render(status: Status | null): void;
}

/** Whether the focus fell to the page, or sits in `root` while it is hidden (a disabled or
 * removed button gives it up; a hidden card's controls cannot keep it). */
function fell(root: HTMLElement): boolean {
  const a = document.activeElement;
  return !a || a === document.body || !a.isConnected || (root.contains(a) && (root.hidden || a.closest('[hidden]') !== null));
}

/** `done` runs after an act succeeded (the season screen reads the season again); `away` is
 * where the focus goes when the card goes (the season's heading). Probe (session 24): the
 * buttons are disabled while an act is sent, and the pressed one lost the focus to the page;
 * it goes back to that button, as a dialog's does (ui/token.ts). */
export function adminCard(season: string, adminToken: string, done: () => void, away: () => HTMLElement | null = () => null): AdminCard {
  const reason = h('input', { id: 'admin-reason', name: 'reason', type: 'text', maxlength: 500, autocomplete: 'off' }) as HTMLInputElement;
  const closes = h('input', { id: 'admin-closes', name: 'closes', type: 'datetime-local', value: localInput(new Date(), 48) }) as HTMLInputElement;
  const closesRow = h('p', {}, h('label', { for: 'admin-closes' }, t('adminCloses')), ' ', closes);
  const buttons = h('div', { class: 'actions' });
  const confirmRow = h('div', { class: 'actions confirm', hidden: true });
  const status = h('p', { class: 'small', role: 'status' });
  const error = h('p', { class: 'error', role: 'alert' });
  const root = h(
    'section',
    { class: 'card admin', id: 'season-admin', 'aria-labelledby': 'admin-h', hidden: true },
    h('h2', { id: 'admin-h' }, t('adminTitle')),
    h('p', { class: 'small' }, t('adminIntro')),
    h('p', {}, h('label', { for: 'admin-reason' }, t('adminReason')), ' ', reason),
    closesRow,
    buttons,
    confirmRow,
    status,
    error,
  );
  let shown = '';
  let busy = false;

  async function act(which: AdminAct): Promise<void> {
    const body = adminBody(which, reason.value, closes.value);
    if (!body) {
      error.textContent = t('adminNeedReason');
      reason.focus();
      return;
    }
    busy = true;
    error.textContent = status.textContent = '';
    for (const b of root.querySelectorAll('button')) b.disabled = true;
    try {
      await api.adminAct(season, adminToken, which, body);
      status.textContent = t('adminDone', { act: t(LABEL[which]) });
      reason.value = '';
      done();
    } catch (e) {
      error.textContent = problemText(e);
    } finally {
      busy = false;
      confirmRow.hidden = true;
      for (const b of root.querySelectorAll('button')) b.disabled = false;
      if (fell(root)) buttons.querySelector<HTMLButtonElement>(`#admin-${which}`)?.focus();
    }
  }

  function askCancel(): void {
    const yes = h('button', { type: 'button', class: 'danger', id: 'admin-cancel-yes' }, t('adminYes'));
    const no = h('button', { type: 'button', id: 'admin-cancel-no' }, t('adminNo'));
    yes.addEventListener('click', () => void act('cancel'));
    no.addEventListener('click', () => {
      confirmRow.hidden = true;
      buttons.querySelector<HTMLButtonElement>('#admin-cancel')?.focus();
    });
    confirmRow.replaceChildren(h('p', {}, t('adminCancelConfirm')), yes, no);
    confirmRow.hidden = false;
    no.focus();
  }

  return {
    root,
    render(s: Status | null): void {
      const had = root.contains(document.activeElement) ? document.activeElement : null;
      draw(s);
      if (!had || !fell(root)) return;
      // the card's controls drawn anew or gone: the same button again, else the season's heading
      const again = had.id && !root.hidden ? root.querySelector<HTMLElement>(`#${CSS.escape(had.id)}`) : null;
      (again ?? away())?.focus();
    },
  };

  function draw(s: Status | null): void {
    const acts = adminActs(s);
    root.hidden = acts.length === 0;
    closesRow.hidden = !acts.includes('postpone');
    const key = acts.join(',');
    if (key === shown || busy) return; // keep focus and a half-typed reason across re-renders
    shown = key;
    confirmRow.hidden = true;
    buttons.replaceChildren(
      ...acts.map((which) => {
        const b = h('button', { type: 'button', id: `admin-${which}`, class: which === 'cancel' ? 'danger' : '' }, t(LABEL[which]));
        b.addEventListener('click', () => (which === 'cancel' ? askCancel() : void act(which)));
        return b;
      }),
    );
  }
}
