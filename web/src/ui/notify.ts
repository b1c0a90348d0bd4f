// Notifications on this device (issue 25, docs/web.md "Notifications"): nothing is asked until
// the player turns them on here; then the browser asks for permission, the device subscribes to
// Web Push with the server's VAPID key (when the server and the browser do push), the
// subscription goes to the server with the bey's token, and a test notification shows that it
// works. The service worker (pwa/sw.js) shows what the server pushes and opens the season.
import { api, ApiProblem, type Schemas } from '../api/client';
import { lang, t } from '../i18n';
import { clear, h } from './dom';

type PushSub = Schemas['PushSubscriptionOut'];

/** A base64url string as bytes (PushManager takes the key as a BufferSource). */
export function keyBytes(b64url: string): Uint8Array<ArrayBuffer> {
  const b64 = b64url.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (b64url.length % 4)) % 4);
  const raw = atob(b64);
  const out = new Uint8Array(new ArrayBuffer(raw.length));
  for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
  return out;
}

/** The browser's PushSubscription as the server takes it. */
export function subscriptionBody(sub: PushSubscriptionJSON, leadMinutes: number): Schemas['PushSubscriptionIn'] {
  return {
    endpoint: sub.endpoint ?? '',
    keys: { p256dh: sub.keys?.p256dh ?? '', auth: sub.keys?.auth ?? '' },
    lead_minutes: leadMinutes,
    always: false,
    lang: lang(),
  };
}

async function subscribe(reg: ServiceWorkerRegistration, season: string, token: string): Promise<boolean> {
  if (!('pushManager' in reg)) return false;
  const { public_key } = await api.pushKey();
  if (!public_key) return false;
  try {
    const sub = await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(public_key) });
    await api.subscribePush(season, token, subscriptionBody(sub.toJSON(), 60));
    return true;
  } catch {
    return false; // no push service reachable (a headless browser, a blocked network)
  }
}

/** One subscription as the card lists it: the masked endpoint, the lead time, "always". */
export function subscriptionLine(s: PushSub): string {
  return t('notifySubLine', { endpoint: s.endpoint, lead: s.lead_minutes, always: s.always ? t('notifySubAlways') : '' });
}

/** The bey's push subscriptions, each with a button deleting it (issue 25: listed and deleted by
 * the bey); the list is read again after each deletion. */
function subscriptionList(season: string, token: string, note: HTMLElement): [HTMLElement, () => Promise<void>] {
  const list = h('ul', { class: 'push-subs' });
  const refusal = (e: unknown) => t('notifySubFailed', { code: e instanceof ApiProblem ? e.code : String(e) });
  const load = async (): Promise<void> => {
    let subs: PushSub[];
    try {
      subs = (await api.pushSubscriptions(season, token)).subscriptions;
    } catch (e) {
      note.textContent = refusal(e);
      return;
    }
    clear(list);
    if (!subs.length) list.append(h('li', { class: 'small' }, t('notifySubsNone')));
    for (const s of subs) {
      const del = h('button', { type: 'button', class: 'push-sub-delete', 'aria-label': `${t('notifySubDelete')}: ${s.endpoint}` }, t('notifySubDelete'));
      del.addEventListener('click', () => {
        void (async () => {
          try {
            await api.deletePush(season, token, s.subscription_id);
            note.textContent = t('notifySubDeleted');
          } catch (e) {
            note.textContent = refusal(e);
          }
          await load();
        })();
      });
      list.append(h('li', { 'data-subscription': s.subscription_id }, h('span', {}, subscriptionLine(s)), ' ', del));
    }
  };
  return [list, load];
}

export function notifyCard(season: string, token: string): HTMLElement {
  const note = h('p', { class: 'small', role: 'status' });
  const test = h('button', { type: 'button', id: 'notify-test', hidden: true }, t('notifyTest'));
  const on = h('button', { type: 'button', id: 'notify-on' }, t('notifyOn'));
  const [subs, loadSubs] = subscriptionList(season, token, note);
  const show = h('button', { type: 'button', id: 'notify-subs' }, t('notifySubsShow'));
  show.addEventListener('click', () => void loadSubs());
  const card = h('section', { class: 'card notify', 'aria-labelledby': 'notify-h' },
    h('h2', { id: 'notify-h' }, t('notifyTitle')), h('p', { class: 'small' }, t('notifyWhy')), on, test, note,
    h('h3', {}, t('notifySubs')), show, subs);
  const showTest = async () => {
    const reg = await navigator.serviceWorker.ready;
    await reg.showNotification('Seksenbir', { body: t('notifyTestBody'), tag: 'seksenbir-test', data: { url: `/#/s/${season}` } });
  };
  on.addEventListener('click', () => {
    void (async () => {
      if (!('Notification' in window) || !('serviceWorker' in navigator)) {
        note.textContent = t('notifyUnsupported');
        return;
      }
      if ((await Notification.requestPermission()) !== 'granted') {
        note.textContent = t('notifyDenied');
        return;
      }
      const reg = await navigator.serviceWorker.ready;
      note.textContent = (await subscribe(reg, season, token)) ? t('notifySubscribed') : t('notifyNoPush');
      test.hidden = false;
      await loadSubs();
      await showTest();
    })();
  });
  test.addEventListener('click', () => void showTest());
  return card;
}
