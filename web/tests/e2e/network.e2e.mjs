// End to end (h-probe3, rounds 2 and 3): the player whose connection misbehaves — against a real
// stack (tests/e2e/harness.mjs). A bey of a live season sends a chat message whose answer is lost
// after the server committed it (the route lets the request through and drops the response):
// the client sends it again with its same Idempotency-Key and the server answers the first
// message (ADR-175): it is in the channel once. A join whose answer is lost is sent again with
// the secret the client drew and answered with the first seat (ADR-178). A command the store cannot take yet (503
// store_busy, Retry-After) is waited out as told and said. Then the tab goes offline: a message
// is refused at once and kept; online again, it is sent once.
import assert from 'node:assert/strict';
import { launch, provincePoint, startStack, waitFor } from './harness.mjs';

const { base, ops, stop } = await startStack();
let browser;
try {
  if (!ops) throw new Error('the network test needs the stack’s ops token (WEB_E2E_OPS_TOKEN)');
  const iso = new Date(Date.now() + 3 * 3600_000).toISOString();
  const created = await fetch(`${base}/v1/seasons`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ops}` },
    body: JSON.stringify({ mode: 'live', registration_closes_at: iso }),
  });
  assert.equal(created.status, 201, await created.clone().text());
  const season = (await created.json()).season_id;

  browser = await launch();
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'tr-TR' });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));

  // 0. a trial season's orders whose answer is lost after the commit: the orders route honours
  // the Idempotency-Key, so the client sends the set again with the same key after a second,
  // says so, and then says the orders were sent (before: "the server could not be reached")
  const tap = async (plate) => {
    const at = await provincePoint(page, plate);
    await page.mouse.click(at.x, at.y);
  };
  await page.goto(`${base}/`);
  await page.getByRole('heading', { name: 'Deneme sezonu başlat' }).waitFor();
  await tap(6);
  await waitFor('the memleket picked', async () => (await page.locator('#memleket').inputValue()) === '6');
  await page.getByRole('button', { name: 'Başlat' }).click();
  await page.waitForURL(/#\/s\/[0-9a-f]+$/);
  await page.locator('#token-kept').click();
  await page.locator('#p-6.mine').waitFor();
  await tap(6);
  await page.locator('#order-panel fieldset').waitFor();
  await tap(71);
  await waitFor('the order made', async () => (await page.locator('#order-count').textContent()) === '1 / 1 emir');
  const orderKeys = [];
  await page.route('**/v1/seasons/*/orders', async (route) => {
    orderKeys.push(route.request().headers()['idempotency-key']);
    if (orderKeys.length > 1) return route.continue();
    await route.fetch(); // the server takes the set
    await route.abort('connectionreset'); // its answer never arrives
  });
  await page.locator('#send').click();
  await waitFor('the resend said', async () => /aynı istek 1 saniye sonra yeniden gönderilecek/.test((await page.locator('#notice').textContent()) ?? ''));
  await page.getByText('Emirler gönderildi: 1. Divan için.').waitFor();
  assert.equal(orderKeys.length, 2, `sent ${orderKeys.length} times`);
  assert.equal(orderKeys[0], orderKeys[1], 'the resend carries the same Idempotency-Key');
  await waitFor('the resend notice gone', async () => !/yeniden gönderilecek/.test((await page.locator('#notice').textContent()) ?? ''));
  await page.unroute('**/v1/seasons/*/orders');

  // a join whose answer is lost after the server seated the bey (ADR-178): the join carries a
  // secret the client drew and kept, so it is sent again as it was sent first and the server
  // answers the first seat and token: one seat taken, held by this browser (before: the
  // memleket taken by a seat nobody held, the resend never sent)
  const joins = [];
  await page.route('**/v1/seasons/*/join', async (route) => {
    joins.push(route.request().postData());
    if (joins.length > 1) return route.continue();
    await route.fetch(); // the server seats the bey
    await route.abort('connectionreset'); // its answer never arrives
  });
  await page.goto(`${base}/#/s/${season}`);
  await page.locator('#join-memleket').selectOption('6');
  await page.locator('#join-name').fill('Alp');
  await page.getByRole('button', { name: 'Katıl' }).click();
  await page.locator('code.tok').waitFor({ timeout: 20_000 });
  const token = await page.locator('#token-text').textContent();
  await page.unroute('**/v1/seasons/*/join');
  assert.equal(joins.length, 2, `joined ${joins.length} times`);
  assert.equal(joins[1], joins[0], 'the resend is the same join: the same secret');
  assert.ok(token?.endsWith(`.${JSON.parse(joins[0] ?? '{}').token_secret}`), 'the token is the first join\'s');
  const seated = await (await fetch(`${base}/v1/seasons/${season}`)).json();
  assert.deepEqual(seated.beys.filter((b) => !b.computer).map((b) => b.memleket), [6], 'one seat taken');
  await page.locator('#token-kept').click();
  await page.locator('section.chat #chat-text').waitFor();

  const messages = async () => {
    const r = await fetch(`${base}/v1/seasons/${season}/channels/all/messages`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(r.status, 200, await r.clone().text());
    return (await r.json()).messages.map((m) => m.text);
  };

  // 1. a chat message's answer lost after the commit: the first POST goes through, its
  // response is dropped. The chat route honours the Idempotency-Key (ADR-175), so the client
  // sends it again with its same key and the server answers the first message: two requests,
  // one key, the message in the channel once (before ADR-175 the client could not resend it).
  const keys = [];
  await page.route('**/v1/seasons/*/messages', async (route) => {
    if (route.request().method() !== 'POST') return route.continue();
    keys.push(route.request().headers()['idempotency-key']);
    if (keys.length > 1) return route.continue(); // the resend is answered
    await route.fetch(); // the server commits the message
    await route.abort('connectionreset'); // and the player's browser never hears of it
  });
  const text = 'selam, bağlantı koptu mu?';
  await page.locator('section.chat #chat-text').fill(text);
  await page.locator('form.chat-compose button[type=submit]').click();
  await waitFor('the message shown', async () => ((await page.locator('section.chat ol.conversation').textContent()) ?? '').includes(text), 20_000);
  await page.waitForTimeout(8_000); // longer than every resend's wait (1 + 2 + 4 s)
  assert.equal(keys.length, 2, `sent ${keys.length} times`);
  assert.match(keys[0] ?? '', /^[0-9a-f]{32}$/);
  assert.equal(keys[1], keys[0], 'the resend carries the same key');
  assert.deepEqual((await messages()).filter((t) => t === text), [text], 'the message is in the channel once');
  assert.equal(await page.locator('section.chat #chat-text').inputValue(), '', 'the draft is sent');
  await page.unroute('**/v1/seasons/*/messages');

  // 2. 503 store_busy with Retry-After: waited out as told, said, then done once
  const busyKeys = [];
  await page.route('**/v1/seasons/*/messages', async (route) => {
    if (route.request().method() !== 'POST') return route.continue();
    busyKeys.push(route.request().headers()['idempotency-key']);
    if (busyKeys.length > 1) return route.continue();
    await route.fulfill({
      status: 503,
      contentType: 'application/problem+json',
      headers: { 'Retry-After': '2' },
      body: JSON.stringify({ type: 'about:blank', title: 'busy', status: 503, code: 'store_busy', detail: 'busy' }),
    });
  });
  const second = 'sunucu meşgulmüş';
  await page.locator('section.chat #chat-text').fill(second);
  await page.locator('form.chat-compose button[type=submit]').click();
  await waitFor('the wait said', async () => /2 saniye sonra bir kez daha denenecek/.test((await page.locator('#notice').textContent()) ?? ''));
  await waitFor('the second message shown', async () => ((await page.locator('section.chat ol.conversation').textContent()) ?? '').includes(second), 20_000);
  assert.equal(busyKeys.length, 2);
  assert.equal(busyKeys[0], busyKeys[1], 'the try after the wait carries the same key');
  assert.deepEqual((await messages()).filter((t) => t === second), [second]);
  await page.unroute('**/v1/seasons/*/messages');

  // 3. offline, then online (pwa.e2e covers the banner on every screen): a message sent while
  // offline is refused at once with the server not reached, the field keeps it, nothing hangs;
  // back online, the banner goes and the same message is sent once
  await context.setOffline(true);
  await page.locator('#offline').waitFor();
  assert.match(await page.locator('#offline').textContent(), /Çevrimdışısın/);
  const third = 'çevrimdışıyken yazdım';
  await page.locator('section.chat #chat-text').fill(third);
  await page.locator('form.chat-compose button[type=submit]').click();
  await waitFor('the chat says the server was not reached', async () => /Sunucuya ulaşılamadı/.test((await page.locator('section.chat').textContent()) ?? ''));
  assert.equal(await page.locator('section.chat #chat-text').inputValue(), third, 'the draft is kept');
  await context.setOffline(false);
  await waitFor('the banner gone', async () => !(await page.locator('#offline').isVisible()), 20_000);
  await page.locator('form.chat-compose button[type=submit]').click();
  await waitFor('the draft sent', async () => (await page.locator('section.chat #chat-text').inputValue()) === '', 20_000);
  assert.deepEqual((await messages()).filter((t) => t === third), [third]);
  assert.deepEqual(problems, []);
  console.log('network e2e: ok');
} finally {
  await browser?.close();
  await stop();
}
