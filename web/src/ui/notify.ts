// Notifications on this device (issue 25, docs/web.md "Notifications"): nothing is asked until
// the player turns them on here; then the browser asks for permission, the device subscribes to
// Web Push with the server's VAPID key (when the server and the browser do push), the
// subscription goes to the server with the bey's token, and a test notification shows that it
// works. The service worker (pwa/sw.js) shows what the server pushes and opens the season.
import { api, type Schemas } from '../api/client';
import { lang, t } from '../i18n';
import { h } from './dom';

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

export function notifyCard(season: string, token: string): HTMLElement {
  const note = h('p', { class: 'small', role: 'status' });
  const test = h('button', { type: 'button', id: 'notify-test', hidden: true }, t('notifyTest'));
  const on = h('button', { type: 'button', id: 'notify-on' }, t('notifyOn'));
  const card = h('section', { class: 'card notify', 'aria-labelledby': 'notify-h' },
    h('h2', { id: 'notify-h' }, t('notifyTitle')), h('p', { class: 'small' }, t('notifyWhy')), on, test, note);
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
      await showTest();
    })();
  });
  test.addEventListener('click', () => void showTest());
  return card;
}
