// The installable app and the token screen, end to end in headless Chromium (issue 22,
// docs/web.md "Installable app", "The token"), at a 360-px phone viewport and by keyboard alone:
// - the manifest is linked, Chromium parses it without an error and finds the app installable
//   (Page.getInstallabilityErrors), its icons are served as the sizes they claim, one maskable;
// - the service worker registers with scope / and controls the page; nothing under /v1 is in
//   its caches after a season was played online;
// - offline (context.setOffline), the shell and the season screen still open from the cache and
//   a clear offline notice says game data needs the network; it goes when the network is back;
// - a trial season started with the keyboard only offers its token once in a dialog: the key,
//   copy (the clipboard holds it), a QR code, "Hesap yok; … Ad isteğe bağlıdır"; renewing the key
//   (POST /v1/seasons/{id}/token) offers the new one, the old one is refused, the new one works;
//   a device still holding the old one opens the season as a spectator's and says why;
// - every province's label point on the map takes a tap (nothing lies over it);
// - no page is wider than the 360-px screen; axe-core (WCAG 2.1 AA) finds no serious or critical
//   violation on the dialogs, the key card (in English too) or the offline screens. Any CSP
//   violation or page error fails it.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ARTEFACTS, axeCheck, coveredProvinces, launch, startStack, waitFor } from './harness.mjs';

const NAME = 'pwa-e2e';

function pngSize(buf) {
  assert.equal(buf.subarray(1, 4).toString('ascii'), 'PNG');
  return `${buf.readUInt32BE(16)}x${buf.readUInt32BE(20)}`;
}

function watchProblems(page, problems) {
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    // offline, the browser says each failed fetch itself: that is the point of the test
    if (m.type() === 'error' && !/Failed to load resource|ERR_INTERNET_DISCONNECTED/.test(m.text())) problems.push(`console: ${m.text()}`);
  });
}

async function noWiderThanTheScreen(page, where) {
  const { scroll, width } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, width: window.innerWidth }));
  assert.ok(scroll <= width, `${where}: the page is ${scroll} px wide on a ${width}-px screen`);
}

/** How many lines the text of `selector`'s first element takes (its text's line boxes). */
function textLines(page, selector) {
  return page.locator(selector).first().evaluate((el) => {
    const range = document.createRange();
    range.selectNodeContents(el);
    return new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top))).size;
  });
}

/** A button is one line high: its text on one line, its box no taller than one line with its
 * padding and border (or the 44-px finger minimum). */
async function oneLineButton(page, selector, where) {
  assert.equal(await textLines(page, selector), 1, `${where}: the text of ${selector} wraps`);
  const { height, line } = await page.locator(selector).first().evaluate((el) => {
    const cs = getComputedStyle(el);
    const px = (v) => Number.parseFloat(v) || 0;
    const chrome = px(cs.paddingTop) + px(cs.paddingBottom) + px(cs.borderTopWidth) + px(cs.borderBottomWidth);
    const lh = cs.lineHeight === 'normal' ? px(cs.fontSize) * 1.25 : px(cs.lineHeight);
    return { height: el.getBoundingClientRect().height, line: Math.max(px(cs.minHeight), lh + chrome) };
  });
  assert.ok(height <= line + 1, `${where}: ${selector} is ${height} px high, one line is ${line}`);
}

/** Every visible control (button, select, field, a disclosure's summary) is a target of at
 * least 24 x 24 CSS px (WCAG 2.2 2.5.8), and 44 px high on a phone (a summary was 23). */
async function targetSizes(page, where) {
  const small = await page.evaluate(() =>
    [...document.querySelectorAll('button, select, input:not([type=hidden]):not([type=checkbox]):not([type=radio]), summary')]
      .map((el) => ({ el, r: el.getBoundingClientRect() }))
      .filter(({ r }) => r.width > 0 && r.height > 0)
      .filter(({ r }) => r.width < 24 || r.height < 44)
      .map(({ el, r }) => `${el.tagName.toLowerCase()} "${(el.textContent || el.getAttribute('aria-label') || '').trim().slice(0, 30)}" ${Math.round(r.width)}x${Math.round(r.height)}`),
  );
  assert.deepEqual(small, [], `${where}: targets under 24 px wide or 44 px high`);
  assert.ok((await page.locator('summary').count()) > 0, `${where}: a summary to measure`);
}

/** A label sits beside its field: on the same line, the field right after it. */
async function labelBesideField(page, id, where) {
  const [label, field] = await Promise.all([page.locator(`label[for="${id}"]`).boundingBox(), page.locator(`#${id}`).boundingBox()]);
  const gap = field.x - (label.x + label.width);
  const sameLine = label.y + label.height / 2 >= field.y && label.y + label.height / 2 <= field.y + field.height;
  assert.ok(sameLine && gap >= 0 && gap <= 16, `${where}: the label of #${id} is apart from its field (${JSON.stringify({ label, field })})`);
}

async function run(browser, base) {
  const context = await browser.newContext({
    viewport: { width: 360, height: 740 }, hasTouch: true, isMobile: true, locale: 'tr-TR',
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  const page = await context.newPage();
  const problems = [];
  watchProblems(page, problems);
  const a11y = []; // axe-core's serious and critical findings on every screen and dialog here
  const shot = async (step) => {
    await page.screenshot({ path: join(ARTEFACTS, `pwa-${step}.png`), fullPage: true });
    a11y.push(...(await axeCheck(page, `pwa-${step}`)));
  };
  try {
    // The manifest: linked, parsed by Chromium without an error, the app installable
    await page.goto(`${base}/`);
    await page.getByRole('heading', { name: 'Deneme sezonu başlat' }).waitFor();
    assert.equal(await page.locator('link[rel=manifest]').getAttribute('href'), '/manifest.webmanifest');
    const answer = await page.request.get(`${base}/manifest.webmanifest`);
    assert.equal(answer.headers()['content-type'], 'application/manifest+json');
    const manifest = await answer.json();
    assert.equal(manifest.name, 'Seksenbir');
    assert.equal(manifest.short_name, 'Seksenbir');
    assert.equal(manifest.lang, 'tr');
    assert.equal(manifest.start_url, '/');
    assert.equal(manifest.scope, '/');
    assert.equal(manifest.display, 'standalone');
    const sizes = new Map();
    for (const icon of manifest.icons) {
      const r = await page.request.get(new URL(icon.src, base).href);
      assert.equal(r.status(), 200, icon.src);
      assert.equal(r.headers()['content-type'], icon.type, icon.src);
      if (icon.type === 'image/png') {
        assert.equal(pngSize(await r.body()), icon.sizes, icon.src);
        sizes.set(`${icon.sizes} ${icon.purpose}`, icon.src);
      }
    }
    for (const want of ['192x192 any', '512x512 any', '512x512 maskable']) assert.ok(sizes.has(want), `icon ${want}`);
    const cdp = await context.newCDPSession(page);
    const parsed = await cdp.send('Page.getAppManifest');
    assert.deepEqual(parsed.errors, [], 'Chromium parses the manifest without an error');
    assert.match(parsed.url, /\/manifest\.webmanifest$/);

    // The service worker: registered with scope /, controlling the page
    await waitFor('the worker active', () => page.evaluate(async () => (await navigator.serviceWorker.getRegistration())?.active != null));
    assert.equal(await page.evaluate(async () => (await navigator.serviceWorker.getRegistration()).scope), `${base}/`);
    await waitFor('the worker controls the page', () => page.evaluate(() => navigator.serviceWorker.controller !== null));
    // a test's browser context is an incognito one, where nothing is installable: that one
    // reason aside, Chromium finds nothing missing (manifest, icons, worker, secure context)
    await waitFor('installable', async () => {
      const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
      const missing = installabilityErrors.filter((e) => e.errorId !== 'in-incognito');
      if (missing.length) console.log(`${NAME}: not installable yet: ${JSON.stringify(missing)}`);
      return missing.length === 0;
    });

    // Every province can be tapped where its label is: on a phone the zoom buttons and the
    // credit sit under the map, not over it (they once hid Van, Hakkari, Kars and eight more
    // eastern provinces of the memleket picker)
    assert.deepEqual(await coveredProvinces(page), [], 'home: provinces covered on the map');
    for (const width of [640, 768, 900, 1280]) { // and on a tablet, where they once hid Iğdır and Ağrı
      await page.setViewportSize({ width, height: 740 });
      assert.deepEqual(await coveredProvinces(page), [], `home at ${width} px: provinces covered on the map`);
    }
    // The map's credit lies over none of its drawing, at any width (it once sat over the map's
    // bottom-left corner from 900 px)
    for (const width of [360, 900, 1280]) {
      await page.setViewportSize({ width, height: 740 });
      const [credit, drawing] = await Promise.all([page.locator('.mapbox .credit').first().boundingBox(), page.locator('svg.map').first().boundingBox()]);
      const apart = credit.y >= drawing.y + drawing.height || credit.y + credit.height <= drawing.y || credit.x >= drawing.x + drawing.width || credit.x + credit.width <= drawing.x;
      assert.ok(apart, `home at ${width} px: the credit ${JSON.stringify(credit)} lies over the map ${JSON.stringify(drawing)}`);
    }
    await page.setViewportSize({ width: 360, height: 740 });

    // Opening a season by its link: what is neither a link nor an id is said, never ignored
    await page.locator('#link').fill('merhaba dünya');
    await page.locator('#link').press('Enter');
    await page.locator('#link-error').waitFor();
    assert.match(await page.locator('#link-error').textContent(), /sezon bağlantısı ya da kimliği değil/);
    assert.equal(new URL(page.url()).hash, '', 'still at home');
    await page.locator('#link').fill('');

    // A trial season started with the keyboard only: Tab to the memleket list, type, Tab, Enter
    for (let i = 0; i < 300 && (await page.evaluate(() => document.activeElement?.id)) !== 'memleket'; i++) await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'memleket', 'the memleket list is reached by Tab');
    const outline = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
    assert.notEqual(outline, 'none', 'focus is visible');
    await page.keyboard.type('6');
    await waitFor('Ankara chosen', async () => (await page.locator('#memleket').inputValue()) === '6');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Başlat');
    await page.keyboard.press('Enter');
    await page.waitForURL(/#\/s\/[0-9a-f]+$/);
    const season = page.url().split('#/s/')[1];

    // The token, offered once in a dialog: the key, copy, the QR code, nothing stored
    const dialog = page.locator('dialog[open]');
    await dialog.waitFor();
    const token = await dialog.locator('code.tok').textContent();
    assert.match(token, /^sb1\./);
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'token-kept', 'the dialog takes the focus');
    assert.match(await dialog.locator('#nothing-stored').textContent(), /Hesap yok; e-posta ya da konum istenmez\. Ad isteğe bağlıdır: seçersen herkese açıktır/);
    await dialog.locator('svg.qr path').waitFor();
    assert.ok((await dialog.locator('svg.qr path').getAttribute('d')).length > 100, 'a QR code is drawn');
    await dialog.locator('#token-copy').click();
    await dialog.getByText('Kopyalandı.').waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), token, 'the clipboard holds the key');
    await shot('1-token');
    await dialog.locator('#token-kept').focus();
    await page.keyboard.press('Enter');
    await waitFor('the dialog closed', async () => (await page.locator('dialog[open]').count()) === 0);
    // probe (session 23): the focus fell to the page (the start button is gone with home). The
    // dialog's close event is a task of its own, after its `open` goes: until it runs the focus
    // may still sit in the closed dialog, so it is waited for (a moment, not a retry loop)
    await waitFor('the focus on the season\'s heading', async () => (await page.evaluate(() => document.activeElement?.id)) === 'season-info', 2_000).catch(async () => {
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'season-info', 'the focus goes to the season\'s heading');
    });
    await page.locator('#p-6.mine').waitFor();
    await noWiderThanTheScreen(page, 'the season screen');
    assert.deepEqual(await coveredProvinces(page), [], 'the season screen: provinces covered on the map');
    // At 360 px the list's "Emir ver" keeps to one line, and each label of the offer form sits
    // beside its field (the "Ne" label once ended a line, its field starting the next)
    await page.locator('section.list button', { hasText: 'Emir ver' }).first().waitFor();
    await oneLineButton(page, 'section.list tbody button', 'the list at 360 px');
    await page.locator('#offer-kind').waitFor();
    for (const id of ['offer-to', 'offer-kind']) await labelBesideField(page, id, 'the offer form at 360 px');
    await targetSizes(page, 'the season screen at 360 px');

    // Panning moves the drawn map by a transform while the pointer is down (nothing is drawn
    // again: bench-web's frame times), and the offset becomes the view when it is released
    const map = page.locator('svg.map');
    await map.scrollIntoViewIfNeeded();
    const box = await map.boundingBox();
    const viewBox = () => map.evaluate((svg) => svg.getAttribute('viewBox').split(' ').map(Number));
    const before = await viewBox();
    const k = Math.max(before[2] / box.width, before[3] / box.height);
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 + 60, box.y + box.height / 2 + 30, { steps: 6 });
    assert.equal(await map.evaluate((svg) => svg.style.transform), 'translate(60px, 30px)', 'a drag is a transform');
    assert.deepEqual(await viewBox(), before, 'the view is not redrawn while dragging');
    assert.equal(await map.evaluate((svg) => svg.classList.contains('dragging')), true, 'no hit tests on provinces while dragging');
    await page.mouse.up();
    const after = await viewBox();
    assert.equal(await map.evaluate((svg) => svg.style.transform), '');
    assert.equal(await map.evaluate((svg) => svg.classList.contains('dragging')), false);
    assert.ok(Math.abs(after[0] - (before[0] - 60 * k)) < 0.01 && Math.abs(after[1] - (before[1] - 30 * k)) < 0.01, `the view moved with the drag: ${before} → ${after}`);
    assert.deepEqual(after.slice(2), before.slice(2));

    // Renewing the key: confirmed, the new one offered once, the old one refused. By keyboard,
    // the focus is never left on the page (probe, session 24: after the new key's dialog it
    // was on <body>, the season screen drawn anew behind it): a declined confirmation gives it
    // back to the button, the new key's dialog takes it, and closed gives it back to the button
    const focused = () => page.evaluate(() => document.activeElement?.id || document.activeElement?.tagName);
    await page.locator('#token-rotate').focus();
    await page.keyboard.press('Enter');
    await page.locator('dialog[open] #rotate-no').waitFor();
    assert.equal(await focused(), 'rotate-no', 'the confirmation takes the focus');
    await page.keyboard.press('Enter');
    await waitFor('the confirmation closed', async () => (await page.locator('dialog[open]').count()) === 0);
    await waitFor('the focus back on the button', async () => (await focused()) === 'token-rotate', 2_000).catch(async () => {
      assert.equal(await focused(), 'token-rotate', 'declined, the focus is back on the button');
    });
    await page.keyboard.press('Enter');
    await page.locator('dialog[open] #rotate-yes').waitFor();
    await shot('2-renew-confirm');
    await page.keyboard.press('Tab');
    assert.equal(await focused(), 'rotate-yes');
    await page.keyboard.press('Enter');
    await page.locator('dialog[open] code.tok').waitFor();
    await page.locator('dialog[open] svg.qr').waitFor();
    assert.equal(await focused(), 'token-kept', 'the new key\'s dialog takes the focus');
    await shot('3-renewed');
    const renewed = await page.locator('dialog[open] code.tok').textContent();
    assert.match(renewed, /^sb1\./);
    assert.notEqual(renewed, token, 'a new key');
    await page.keyboard.press('Enter'); // "Sakladım"
    await waitFor('the new key\'s dialog closed', async () => (await page.locator('dialog[open]').count()) === 0);
    await page.locator('#p-6.mine').waitFor();
    await waitFor('the focus back on the renewal button', async () => (await focused()) === 'token-rotate', 5_000).catch(async () => {
      throw new Error(`after the new key's dialog the focus is on ${await focused()}, not the renewal button`);
    });
    const saved = await page.evaluate(() => localStorage.getItem('seksenbir.seasons.v1'));
    assert.ok(saved.includes(renewed) && !saved.includes(token), 'the device keeps the new key only');
    const me = async (t) => (await fetch(`${base}/v1/seasons/${season}/me`, { headers: { Authorization: `Bearer ${t}` } })).status;
    assert.equal(await me(token), 401, 'the old key is refused');
    assert.equal(await me(renewed), 200, 'the new key works');
    await page.locator('#p-6.mine').waitFor();

    // Another device still holding the old key: the season opens there as a spectator's (the
    // map, the reports), saying its key no longer works and where to paste the new one; it
    // once showed nothing but "Jeton geçersiz (bad_token)"
    const other = await browser.newContext({ viewport: { width: 360, height: 740 }, hasTouch: true, isMobile: true, locale: 'tr-TR' });
    try {
      const stalePage = await other.newPage();
      watchProblems(stalePage, problems);
      const stale = saved.replace(renewed, token);
      await stalePage.addInitScript((v) => localStorage.setItem('seksenbir.seasons.v1', v), stale);
      await stalePage.goto(`${base}/#/s/${season}`);
      await stalePage.locator('#key-refused').waitFor();
      assert.match(await stalePage.locator('#key-refused').textContent(), /anahtar bu sezonda artık geçmiyor/);
      assert.equal(await stalePage.locator('#key-refused a[href="#/"]').count(), 1, 'the way to paste the new key');
      await stalePage.locator('#p-6').waitFor();
      assert.equal(await stalePage.locator('svg.map g.prov').count(), 81, 'the map, as a spectator sees it');
      assert.equal(await stalePage.locator('#token-rotate').isVisible(), false, 'no renewing with a refused key');
      await stalePage.locator('#divan-pick, section.report').first().waitFor();
      await stalePage.screenshot({ path: join(ARTEFACTS, 'pwa-3b-stale-key.png'), fullPage: true });
      a11y.push(...(await axeCheck(stalePage, 'pwa-3b-stale-key')));
    } finally {
      await other.close();
    }

    // English: the plain statement in English too
    await page.getByRole('button', { name: 'Switch to English' }).click();
    await page.getByText('No account; no e-mail or location is asked for. A name is optional').first().waitFor();
    await page.locator('#token-rotate').scrollIntoViewIfNeeded();
    await shot('4-key-card-en');
    await page.getByRole('button', { name: 'Türkçe’ye geç' }).click();

    // Nothing of the game is in the worker's caches
    const cached = await page.evaluate(async () => {
      const urls = [];
      for (const key of await caches.keys()) for (const r of await (await caches.open(key)).keys()) urls.push(new URL(r.url).pathname);
      return urls;
    });
    assert.ok(cached.includes('/') && cached.some((u) => u.startsWith('/assets/index-')), `the shell is cached: ${cached}`);
    assert.deepEqual(cached.filter((u) => !(u === '/' || u.startsWith('/assets/') || u === '/favicon.svg' || u === '/manifest.webmanifest')), [], 'only the shell is cached');

    // Offline: the season screen and home still open; the notice says why nothing loads
    await context.setOffline(true);
    await page.reload();
    await page.locator('#offline').waitFor();
    assert.match(await page.locator('#offline').textContent(), /Çevrimdışısın/);
    await shot('5-offline-season');
    await page.goto(`${base}/`);
    await page.getByRole('heading', { name: 'Deneme sezonu başlat' }).waitFor();
    assert.ok(await page.locator('#offline').isVisible(), 'the notice on home too');
    assert.equal(await page.locator('svg.map g.prov').count(), 81, 'the map outlines are in the shell');
    await noWiderThanTheScreen(page, 'home');
    await shot('6-offline-home');
    await context.setOffline(false);
    await waitFor('the notice gone', async () => !(await page.locator('#offline').isVisible()));
    assert.deepEqual(problems, [], 'no CSP violation, no page error');
    assert.deepEqual(a11y, [], 'axe-core: no serious or critical violation on any screen or dialog');
  } catch (e) {
    await page.screenshot({ path: join(ARTEFACTS, 'pwa-failed.png'), fullPage: true }).catch(() => undefined);
    throw e;
  } finally {
    await context.close();
  }
}

const { base, stop } = await startStack();
let browser;
try {
  browser = await launch();
  await run(browser, base);
  console.log(`${NAME}: manifest, service worker, offline shell and notice, token screen checked at 360 px`);
} catch (e) {
  console.error(e);
  process.exitCode = 1;
} finally {
  await browser?.close();
  await stop();
}
