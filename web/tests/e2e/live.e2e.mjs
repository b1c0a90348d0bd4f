// End to end (issue 22): a live season on a compressed calendar with two browser contexts as
// two beys — against a real stack (tests/e2e/harness.mjs). Both open the season by its link
// and see registration open with its countdown and calendar; the first joins with Ankara (6);
// the second asks for Ankara too, is told it is taken with the free neighbours, and joins with
// Kırıkkale (71). After registration closes by itself, the first gives an order on the map
// before the lock; at the lock the Divan resolves and both see its report.
// Then the first bey's key, pasted at home on a second device (or its QR code's address opened
// on a third), opens the same seat there.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ARTEFACTS, axeCheck, launch, provincePoint, startStack, waitFor } from './harness.mjs';

const INTERVAL_S = 25; // Divan n at the close + n × 25 s
const REGISTRATION_S = INTERVAL_S + 5; // a compressed close is at least one interval ahead

// The read side lags each step it projects by LAG_S, as on a loaded box: a join's new key is
// not yet among the token hashes it checks when the page first reads the bey's view (session
// 24: the first refresh took the new key for refused, 401 `bad_token`, and the chat never
// came; it passed on a quiet box, where the projection wins the race by 200 ms)
const LAG_S = 0.3;
const { base, ops, stop } = await startStack({ FAULT_POINT: `mid_apply:sleep=${LAG_S}` });
let browser;
let season = null;
// every answer the pages were refused, with when and its problem code: said when a step fails
const refused = [];
const pages = [];
const t0 = Date.now();
try {
  if (!ops) throw new Error('the live test needs the stack’s ops token (WEB_E2E_OPS_TOKEN)');
  const close = new Date(Date.now() + REGISTRATION_S * 1000);
  const iso = new Date(close.getTime() + 3 * 3600_000).toISOString().replace('Z', '+03:00');
  const created = await fetch(`${base}/v1/seasons`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ops}` },
    body: JSON.stringify({ mode: 'live', registration_closes_at: iso, divan_interval_seconds: INTERVAL_S }),
  });
  assert.equal(created.status, 201, await created.clone().text());
  season = (await created.json()).season_id;

  browser = await launch();
  const a = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'tr-TR' });
  const b = await browser.newContext({ viewport: { width: 360, height: 740 }, hasTouch: true, isMobile: true, locale: 'tr-TR' });
  const [pa, pb] = [await a.newPage(), await b.newPage()];
  pages.push(['pa', pa], ['pb', pb]);
  const problems = [];
  for (const [who, p] of [['pa', pa], ['pb', pb]]) {
    p.on('response', async (r) => {
      if (r.status() < 400) return;
      const code = await r.json().then((b) => b.code, () => null);
      refused.push(`${((Date.now() - t0) / 1000).toFixed(2)} s ${who} ${r.request().method()} ${new URL(r.url()).pathname} ${r.status()} ${code}`);
    });
  }
  for (const p of [pa, pb]) {
    p.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    p.on('console', (m) => {
      if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) problems.push(`console: ${m.text()}`);
    });
  }
  const a11y = [];
  const shot = async (p, name) => {
    await p.screenshot({ path: join(ARTEFACTS, `live-${name}.png`), fullPage: true });
    a11y.push(...(await axeCheck(p, `live-${name}`)));
  };

  // Every text the status line shows from the first moment, kept on the page: a notice said
  // and taken back before the test looks is caught too
  const recordNotices = () => {
    window.__notices = [];
    new MutationObserver(() => {
      const said = document.querySelector('#notice')?.textContent ?? '';
      if (said && window.__notices.at(-1) !== said) window.__notices.push(said);
    }).observe(document, { childList: true, subtree: true, characterData: true });
  };
  // Every stream event the page is given, with when (said when a step fails, with the refused
  // answers: whether an offer_received came)
  const recordStream = () => {
    window.__stream = [];
    const Source = window.EventSource;
    window.EventSource = class extends Source {
      constructor(...args) {
        super(...args);
        const add = this.addEventListener.bind(this);
        this.addEventListener = (name, f, o) =>
          add(name, (e) => {
            window.__stream.push(`${(performance.timeOrigin + performance.now()) / 1000} ${name} ${e.lastEventId ?? ''}`);
            return f(e);
          }, o);
      }
    };
  };
  // Both open the season by its link: registration open, a countdown, the calendar
  for (const p of [pa, pb]) {
    await p.addInitScript(recordStream);
    await p.addInitScript(recordNotices);
    await p.goto(`${base}/#/s/${season}`);
    await p.getByRole('heading', { name: 'Kayıt açık' }).waitFor();
    await waitFor('the registration countdown', async () => /Kayıt \d\d:\d\d kapanır/.test(await p.locator('#countdown').textContent()));
    assert.match(await p.locator('section.clock').textContent(), /İstanbul/);
    // probe (session 23): "you can only watch" was said beside the join form
    await p.locator('#join-memleket').waitFor();
    assert.doesNotMatch((await p.locator('#notice').textContent()) ?? '', /yalnızca izleyebilirsin/, 'no "only watch" beside the join form');
    // probe (session 24): nor for a moment before the status was read (the first draw said it,
    // then the join form took it back)
    const said = await p.evaluate(() => window.__notices);
    assert.ok(!said.some((x) => /yalnızca izleyebilirsin/.test(x)), `never "only watch" during registration: ${JSON.stringify(said)}`);
  }
  // the memleket still free: all 81 before anyone joins
  assert.match(await pb.locator('#free-count').textContent(), /^81 memleket boş/);
  await shot(pb, '1-registration');

  // The first bey joins with Ankara
  await pa.locator('#join-memleket').selectOption('6');
  await pa.locator('#join-name').fill('Alp');
  await pa.getByRole('button', { name: 'Katıl' }).click();
  refused.push(`${((Date.now() - t0) / 1000).toFixed(2)} s pa asks to join`);
  await pa.locator('code.tok').waitFor();
  const keyA = await pa.locator('#token-text').textContent(); // kept for the second device below
  assert.match(keyA, /^sb1\./);
  await pa.locator('#token-kept').click(); // the token dialog (ui/token.ts) is closed
  await pa.getByRole('heading', { name: 'Bu sezona katıl' }).waitFor({ state: 'hidden' });

  // The second asks for Ankara too: taken, with the free neighbours named; then Kırıkkale
  await pb.locator('#join-memleket').selectOption('6');
  await pb.getByRole('button', { name: 'Katıl' }).click();
  await pb.locator('section.join [role=alert]').getByText(/Boş komşu memleketler: .*71 Kırıkkale/).waitFor();
  assert.match(await pb.locator('section.join [role=alert]').textContent(), /memleket_taken/);
  assert.equal(await pb.locator('#join-memleket option[value="6"]').count(), 0, 'a memleket taken meanwhile is no longer offered');
  await shot(pb, '2-taken');
  await pb.locator('#join-memleket').selectOption('71');
  await pb.locator('#join-name').fill('Bora');
  await pb.getByRole('button', { name: 'Katıl' }).click();
  await pb.locator('code.tok').waitFor();
  // The key kept and the chat clicked at once: the dialog's close event, a task of its own,
  // runs after; it must not take the focus back to the season's heading (seen in CI: the
  // draft below lost its focus). Before the fix the heading had it.
  await pb.locator('section.chat #chat-text').waitFor();
  await pb.evaluate(() => {
    document.querySelector('#token-kept').click();
    document.querySelector('section.chat #chat-text').focus();
  });
  await pb.waitForTimeout(100);
  assert.ok(await pb.locator('section.chat #chat-text').evaluate((el) => el === document.activeElement), 'a focus moved on before the key dialog closed stays');

  // Chat (issue 24): open from the join, registration included. The first writes to everyone
  // a text with markup, which the second sees as text (never parsed), reports, and mutes.
  // The second is halfway through a message of its own when the first's arrives: the panel
  // reads its channel again and the draft stays, focused. Each writer is shown by its name.
  const draft = 'yarım kalan söz';
  await pb.locator('section.chat #chat-text').fill(draft);
  const markup = '<b>selam</b> Kırıkkale';
  await pa.locator('section.chat #chat-text').fill(markup);
  await pa.locator('form.chat-compose button[type=submit]').click();
  await waitFor('the message reaches the second bey', async () => ((await pb.locator('section.chat ol.conversation').textContent()) ?? '').includes(markup), 20_000);
  assert.equal(await pb.locator('section.chat ol.conversation b').count(), 0); // no markup made
  assert.equal(await pb.locator('section.chat #chat-text').inputValue(), draft, 'a draft survives a message coming in');
  assert.ok(await pb.locator('section.chat #chat-text').evaluate((el) => el === document.activeElement), 'the draft keeps the focus');
  assert.match(await pb.locator('section.chat ol.conversation li').last().textContent(), /^Alp: /);
  assert.equal(await pa.locator('section.chat #chat-text').inputValue(), '', 'a message sent leaves the field');
  // Session 22's probe: a message of one 1,000-letter word wraps inside the phone's card (it
  // made the page wider than the screen); half a surrogate pair is refused in words, with its
  // code, and the text stays in the field to be corrected
  const word = 'ş'.repeat(1000);
  await pa.locator('section.chat #chat-text').fill(word);
  await pa.locator('form.chat-compose button[type=submit]').click();
  await waitFor('the long word reaches the second bey', async () => ((await pb.locator('section.chat ol.conversation').textContent()) ?? '').includes(word), 20_000);
  assert.ok(await pb.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'a long word wraps: nothing wider than the screen');
  // Session 22's probe: maxlength=1000 counted UTF-16 code units, so 1,000 emoji were cut to
  // 500. The counter counts code points as the server does: 1,000 emoji are sent and arrive
  // whole; one more and the field says the server's limit and the button is off
  const emoji = '😀'.repeat(1000);
  await pa.locator('section.chat #chat-text').fill(emoji);
  assert.equal(await pa.locator('section.chat #chat-text').inputValue(), emoji, 'the field holds 1,000 emoji');
  assert.equal(await pa.locator('#chat-count').textContent(), '1000/1000 karakter');
  await pa.locator('section.chat #chat-text').press('End');
  await pa.locator('section.chat #chat-text').pressSequentially('😀');
  assert.equal(await pa.locator('#chat-count').textContent(), 'Mesaj en çok 1000 karakter olur (1001)');
  assert.ok(await pa.locator('form.chat-compose button[type=submit]').isDisabled(), 'over the limit nothing can be sent');
  assert.equal(await pa.locator('section.chat #chat-text').evaluate((el) => el.validity.customError), true);
  await pa.locator('section.chat #chat-text').press('Backspace');
  assert.equal(await pa.locator('#chat-count').textContent(), '1000/1000 karakter');
  await pa.locator('form.chat-compose button[type=submit]').click();
  await waitFor('the 1,000 emoji reach the second bey', async () => ((await pb.locator('section.chat ol.conversation').textContent()) ?? '').includes(emoji), 20_000);
  assert.equal(await pa.locator('#chat-count').textContent(), '0/1000 karakter', 'a message sent empties the counter too');
  // Round 1 left it (session 23): the server's 20 lines and 30 marks in a row, checked before
  // sending as the server checks them, said in its words; the border itself is sent and arrives
  const field = pa.locator('section.chat #chat-text');
  const send = pa.locator('form.chat-compose button[type=submit]');
  const border = [`a${'\u0301'.repeat(30)}`, ...Array.from({ length: 19 }, (_, i) => `satır ${i + 2}`)].join('\n');
  await field.fill(`${border}\n`);
  assert.equal(await pa.locator('#chat-count').textContent(), `${[...border].length}/1000 karakter`, 'a trailing break is trimmed');
  await field.press('End');
  await field.pressSequentially('x');
  assert.equal(await pa.locator('#chat-count').textContent(), 'Mesaj en çok 20 satır olur');
  assert.ok(await send.isDisabled(), 'a 21st line cannot be sent');
  assert.equal(await field.evaluate((el) => el.validationMessage), 'Mesaj en çok 20 satır olur');
  await field.fill(border.replace('a', `a\u0301`));
  assert.equal(await pa.locator('#chat-count').textContent(), 'Mesajda bir harfin üstünde art arda en çok 30 işaret olur');
  assert.ok(await send.isDisabled(), 'a 31st mark in a row cannot be sent');
  await field.fill(border);
  assert.ok(!(await send.isDisabled()) && (await field.evaluate((el) => el.validity.valid)), 'the border is valid');
  await send.click();
  await waitFor('20 lines with 30 marks reach the second bey', async () => ((await pb.locator('section.chat ol.conversation').textContent()) ?? '').includes('satır 20'), 20_000);
  // (set in the page: a lone surrogate would not cross the DevTools protocol whole)
  await pa.locator('section.chat #chat-text').evaluate((el) => { el.value = `yarım ${String.fromCharCode(0xd800)} söz`; el.dispatchEvent(new Event('input')); });
  await pa.locator('form.chat-compose button[type=submit]').click();
  await pa.locator('section.chat [role=alert]').getByText(/yarım bir UTF-16 vekil çifti/).waitFor();
  assert.match(await pa.locator('section.chat [role=alert]').textContent(), /\(malformed_json\)/);
  assert.match(await pa.locator('section.chat #chat-text').inputValue(), /^yarım /, 'a refused text stays to be corrected');
  await pa.locator('section.chat #chat-text').fill('');
  // A private conversation during registration: the other bey is offered by its name
  await pa.locator('form.chat-new').getByLabel('Bora').check();
  await pa.locator('form.chat-new button[type=submit]').click();
  await pa.locator('section.chat h3', { hasText: 'Bora ile' }).waitFor();
  await pa.locator('section.chat #chat-text').fill('yalnız sana');
  await pa.locator('form.chat-compose button[type=submit]').click();
  await pb.locator('section.chat button.channel', { hasText: /Alp ile \(1 okunmamış\)/ }).waitFor({ timeout: 20_000 });
  assert.ok(!((await pb.locator('section.chat ol.conversation').textContent()) ?? '').includes('yalnız sana'), 'a private word stays out of the public channel');
  await pb.locator('section.chat button.report').first().click();
  await pb.locator('section.chat button.report', { hasText: 'Bildirildi' }).waitFor();
  await shot(pb, '2b-chat');

  // Registration closes by itself; the lock's countdown follows
  await waitFor('registration closed', async () => /Emirler .* sonra kilitlenir/.test(await pa.locator('#countdown').textContent()), 60_000);
  await pa.locator('#p-6.mine').waitFor();

  // An offer made in the running season reaches its recipient's screen at once (the stream's
  // offer_received), while it can still be answered before the Divan, and is accepted there
  await pa.locator('#offer-to').selectOption('2');
  await pa.locator('#offer-kind').selectOption('pact');
  await pa.locator('section.diplomacy form button[type=submit]').click();
  // the status line says what was done, not the button's word again
  await waitFor('the offer made', async () => /^Teklif yapıldı/.test((await pa.locator('#notice').textContent()) ?? ''));
  await pb.locator('section.diplomacy ul.offers-in li', { hasText: 'Alp' }).getByRole('button', { name: 'Kabul et' }).click({ timeout: 15_000 });
  await pb.locator('section.diplomacy ul.offers-in li', { hasText: 'kabul ettin' }).waitFor();
  assert.match(await pb.locator('#notice').textContent(), /^Kabul ettin: antlaşma Divan’da yürürlüğe girer/);
  // …and the offerer is told at once on its own stream (offer_answered), by the other's name
  await waitFor('the offerer told of the answer', async () => /^Bora teklifini kabul etti: antlaşma 1\. Divan’da yürürlüğe girer\./.test((await pa.locator('#notice').textContent()) ?? ''), 15_000);

  // An order on the map before the lock
  for (const plate of [6, 71]) {
    const at = await provincePoint(pa, plate);
    await pa.mouse.click(at.x, at.y);
  }
  await waitFor('the order', async () => (await pa.locator('#order-count').textContent()) === '1 / 1 emir');
  // (Kırıkkale is the other bey's memleket now: an attack on it is offered, as allows)
  assert.match(await pa.locator('ul.set').textContent(), /Ankara: İlerle 5 birlik → Kırıkkale/);
  await pa.locator('#send').click();
  await pa.getByText('Emirler gönderildi: 1. Divan için.').waitFor();
  await shot(pa, '3-ordered');

  // The lock passes, the Divan resolves: both see its report
  for (const p of [pa, pb]) {
    await waitFor('the report of Divan 1', async () => (await p.locator('section.info h1').textContent()).includes('Divan 1'), 90_000);
    assert.ok((await p.locator('ul.lines.public li').count()) > 0, 'public lines');
    assert.ok((await p.locator('ul.lines.private li').count()) > 0, 'own lines');
  }
  // what became of the pact, in the treaties card: the line names seats, the names beside them
  await waitFor('the outcome of the pact', async () => /Divan 1: .*kabul ettiniz.*\(1\. bey: Alp\)/.test((await pb.locator('section.diplomacy ul.outcomes').textContent()) ?? ''), 20_000);
  await shot(pa, '4-report');
  await shot(pb, '4-report');

  // The first bey's second device (a phone with nothing saved): the key it was shown, pasted at
  // home, opens the same seat; what is no key, or a key the season does not keep, is refused
  const c = await browser.newContext({ viewport: { width: 360, height: 740 }, hasTouch: true, isMobile: true, locale: 'tr-TR' });
  const pc = await c.newPage();
  pc.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  // with no key, after registration closed, the season's link may only be watched, and says so
  await pc.goto(`${base}/#/s/${season}`);
  await waitFor('a visitor told to watch after the close', async () => /yalnızca izleyebilirsin/.test((await pc.locator('#notice').textContent()) ?? ''));
  assert.equal(await pc.locator('section.join').isVisible(), false, 'no join form after the close');
  await pc.goto(`${base}/#/`);
  await pc.getByRole('heading', { name: 'Başka cihazdaki anahtarla aç' }).waitFor();
  await pc.locator('#keys').fill(`https://example.org/#/s/${season}`);
  await pc.getByRole('button', { name: 'Anahtarla aç' }).click();
  await pc.locator('form.keys [role=alert]').getByText(/Bu bir anahtar değil/).waitFor();
  const forged = keyA.replace(/\.[A-Za-z0-9_-]{32}$/, `.${'x'.repeat(32)}`);
  await pc.locator('#keys').fill(forged);
  await pc.getByRole('button', { name: 'Anahtarla aç' }).click();
  await pc.locator('form.keys [role=alert]').getByText(/bad_token/).waitFor();
  assert.equal(await pc.evaluate(() => localStorage.getItem('seksenbir.seasons.v1')), null, 'nothing kept from a refused key');
  await pc.locator('#keys').fill(`  ${keyA}\n`);
  await pc.getByRole('button', { name: 'Anahtarla aç' }).click();
  await pc.waitForURL(new RegExp(`#/s/${season}$`));
  await pc.locator('#p-6.mine').waitFor(); // Ankara, the first bey's seat
  await waitFor('the report on the second device', async () => (await pc.locator('section.info h1').textContent()).includes('Divan 1'), 30_000);
  assert.ok((await pc.locator('ul.lines.private li').count()) > 0, 'own lines on the second device');
  await shot(pc, '5-second-device');
  await c.close();
  // …or its QR code scanned: the address it holds (#/k/<key>) opens the seat, and the key
  // leaves the address at once
  const d = await browser.newContext({ viewport: { width: 360, height: 740 }, hasTouch: true, isMobile: true, locale: 'tr-TR' });
  const pd = await d.newPage();
  pd.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  await pd.goto(`${base}/#/k/${encodeURIComponent(keyA)}`);
  await pd.waitForURL(new RegExp(`#/s/${season}$`));
  await pd.locator('#p-6.mine').waitFor();
  assert.ok(!(await pd.evaluate(() => location.href)).includes(keyA.slice(-32)), 'the key left the address');
  await pd.goBack();
  assert.ok(!pd.url().includes(keyA.slice(-32)), 'no history entry keeps the key');
  await d.close();
  assert.deepEqual(problems, [], 'no CSP violation, no page error');
  assert.deepEqual(a11y, [], 'axe-core: no serious or critical violation on any screen');
  console.log(`e2e: live season ${season} played by two beys (desktop and 360 px phone); screenshots in ${ARTEFACTS}`);
} catch (e) {
  console.error(e);
  console.error(`the answers refused to the pages (season ${season}):\n${refused.join('\n')}`);
  for (const [who, p] of pages) {
    const events = await p.evaluate(() => window.__stream).catch(() => null);
    console.error(`the stream events ${who} was given (s since ${t0 / 1000}): ${JSON.stringify(events?.map((x) => x.replace(/^[\d.]+/, (at) => (at - t0 / 1000).toFixed(2))))}`);
  }
  process.exitCode = 1;
} finally {
  await browser?.close();
  await stop();
}
