// Notifications in the browser (issue 25, docs/web.md "Notifications"), end to end in headless
// Chromium: nothing is asked until the player turns notifications on in the season screen;
// then permission is asked, a test notification is shown by the service worker, and a push
// message delivered to the worker (DevTools' ServiceWorker.deliverPushMessage: Chromium here
// cannot reach a push service to subscribe, so the message is synthetic) is shown with the
// server's text, tagged by its delivery id and routed to the season's screen.
import assert from 'node:assert/strict';
import { createECDH, generateKeyPairSync, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { ARTEFACTS, axeCheck, launch, startStack, waitFor } from './harness.mjs';

const NAME = 'push-e2e';

// the stack's VAPID key, so GET /v1/push/key has one to give
const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
process.env.SEKSENBIR_VAPID_PRIVATE_KEY = privateKey.export({ format: 'jwk' }).d;
// the subscription the test registers points here (never reached: nothing listens on 443)
process.env.SEKSENBIR_OUTBOUND_ALLOW = '127.0.0.1';

/** A device's subscription as a browser would send it (Chromium here cannot reach a push
 * service), registered with the bey's token over the API. */
async function registerDevice(base, season, token) {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const body = {
    endpoint: `https://127.0.0.1/push/${randomBytes(12).toString('hex')}`,
    keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') },
    lead_minutes: 45,
  };
  const r = await fetch(`${base}/v1/seasons/${season}/push-subscriptions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'idempotency-key': randomBytes(16).toString('hex') },
    body: JSON.stringify(body),
  });
  assert.equal(r.status, 201, await r.clone().text());
  return { ...(await r.json()), endpoint: body.endpoint };
}

async function notifications(page) {
  return page.evaluate(async () => {
    const reg = await navigator.serviceWorker.getRegistration();
    return (await reg.getNotifications()).map((n) => ({ title: n.title, body: n.body, tag: n.tag, data: n.data }));
  });
}

async function run(browser, base) {
  const context = await browser.newContext({ locale: 'tr-TR' });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  const cdp = await context.newCDPSession(page);
  const registrations = [];
  cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations: r }) => registrations.push(...r));
  await cdp.send('ServiceWorker.enable');
  try {
    await page.goto(`${base}/`);
    await page.getByRole('heading', { name: 'Deneme sezonu başlat' }).waitFor();
    await waitFor('the worker active', () => page.evaluate(async () => (await navigator.serviceWorker.getRegistration())?.active != null));
    await page.locator('#memleket').selectOption('6');
    await page.getByRole('button', { name: 'Başlat' }).click();
    await page.waitForURL(/#\/s\/[0-9a-f]+$/);
    const season = page.url().split('#/s/')[1];
    const token = (await page.locator('dialog[open] code.tok').textContent()).trim();
    await page.locator('dialog[open] #token-kept').click();

    // opt-in: no permission asked on opening the season; the button asks
    assert.equal(await page.evaluate(() => Notification.permission), 'default', 'nothing asked yet');
    await context.grantPermissions(['notifications'], { origin: base });
    await page.locator('#notify-on').click();
    await page.locator('#notify-test').waitFor();
    await waitFor('the test notification', async () => (await notifications(page)).some((n) => n.tag === 'seksenbir-test'));

    // a push message, as the server sends it (decrypted by the browser), shown and routed
    const reg = registrations.find((r) => r.scopeURL === `${base}/` && !r.isDeleted);
    assert.ok(reg, `a registration for ${base}/: ${JSON.stringify(registrations)}`);
    const payload = {
      event: 'divan_resolved', delivery: 'd-e2e-1', season_id: season, title: 'Seksenbir',
      body: '3. Divan toplandı.', data: { divan: 3 },
    };
    await cdp.send('ServiceWorker.deliverPushMessage', { origin: base, registrationId: reg.registrationId, data: JSON.stringify(payload) });
    await waitFor('the pushed notification', async () => (await notifications(page)).some((n) => n.tag === 'd-e2e-1'));
    const shown = (await notifications(page)).find((n) => n.tag === 'd-e2e-1');
    assert.equal(shown.body, '3. Divan toplandı.');
    assert.equal(shown.data.url, `/#/s/${season}`, 'it opens the season');
    assert.equal(shown.data.event, 'divan_resolved');

    // the bey's subscriptions listed (endpoint masked) and one deleted from the card
    const device = await registerDevice(base, season, token);
    await page.locator('#notify-subs').click();
    const row = page.locator(`ul.push-subs li[data-subscription="${device.subscription_id}"]`);
    await row.waitFor();
    const text = await row.textContent();
    assert.match(text, /https:\/\/127\.0\.0\.1\/… · Divan’dan 45 dk önce/);
    assert.equal(text.includes(device.endpoint.split('/').pop()), false, 'the endpoint is masked');
    await page.screenshot({ path: join(ARTEFACTS, 'push-subscriptions.png'), fullPage: true });
    const a11y = await axeCheck(page, 'push-subscriptions');
    assert.deepEqual(a11y, [], 'axe-core: no serious or critical violations');
    await row.locator('button.push-sub-delete').click();
    await row.waitFor({ state: 'detached' });
    await page.locator('ul.push-subs').getByText('Bu beyin anlık bildirim aboneliği yok.').waitFor();
    const left = await fetch(`${base}/v1/seasons/${season}/push-subscriptions`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.json());
    assert.deepEqual(left.subscriptions, [], 'deleted on the server');
    assert.deepEqual(problems, [], 'no page error');
  } finally {
    await context.close();
  }
}

const { base, stop } = await startStack();
let browser;
try {
  browser = await launch();
  await run(browser, base);
  console.log(`${NAME}: opt-in, test notification, a pushed message shown and routed, a subscription listed and deleted`);
} catch (e) {
  console.error(e);
  process.exitCode = 1;
} finally {
  await browser?.close();
  await stop();
}
