// End to end (issue 22, issue 23, ADR-86): hostile names and texts on every screen, rendered as
// inert text. Against a real stack (tests/e2e/harness.mjs):
//  - the API refuses names that carry markup, bidirectional controls or a lookalike of a name
//    taken, so none gets in by the front door;
//  - what does get in is shown as written: a lobby description full of markup, names that are
//    one very long word, apostrophes, right-to-left letters;
//  - and in case a name ever got past the door, the status and the leaderboard are rewritten in
//    the browser to carry markup, bidi overrides and lookalike names: the home screen (the
//    lobby), a live season's registration screen, and a trial season's info, leaderboard,
//    titles, diplomacy, Divan report, battles and map titles still show them as text — no
//    element, attribute or script comes from them, nothing overflows a 360-px phone.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ARTEFACTS, axeCheck, launch, startStack, waitFor } from './harness.mjs';

const MARKUP = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script><b>Kalın</b>';
const BIDI = '\u202Egnp.exe\u202C Ali\u2066x\u2069';
const LONG = 'Ş'.repeat(24); // a name that is one very long word (the longest a name may be)
const WORDY = 'W'.repeat(200); // longer than the API allows: injected only
const LOOKALIKE = '\u0410y\u015fe'; // Cyrillic А: looks like "Ayşe"
const RTL = 'مرحبا بك';
const APOSTROPHE = "O'Brien\"'";
const INJECTED = { 2: MARKUP, 3: BIDI, 4: WORDY, 5: LOOKALIKE, 6: RTL, 7: APOSTROPHE };

async function post(base, path, body, headers = {}) {
  const r = await fetch(`${base}/v1${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: r.status, body: await r.json() };
}

const { base, ops, stop } = await startStack();
let browser;
try {
  if (!ops) throw new Error('the hostile test needs the stack’s ops token (WEB_E2E_OPS_TOKEN)');
  // --- the door: hostile names are refused with a code naming what is wrong (R-15.5) ---------
  const closes = new Date(Date.now() + 3 * 3600_000).toISOString();
  const live = await post(base, '/seasons', {
    mode: 'live',
    registration_closes_at: closes,
    memleket: 34,
    name: 'Ayşe',
    description: `${MARKUP} ${'Ç'.repeat(60)}`,
  });
  assert.equal(live.status, 201, JSON.stringify(live.body));
  const season = live.body.season_id;
  for (const [name, status, code] of [
    ['<b>x</b>', 422, 'invalid_name'],
    ['x\u202Ey', 422, 'invalid_name'],
    ['a\u200Bb', 422, 'invalid_name'],
    [LOOKALIKE, 409, 'name_taken'],
    ['AYSE', 409, 'name_taken'],
    ['Bey 3', 422, 'name_reserved'],
    ['Нan', 422, 'name_reserved'], // Cyrillic Н
  ]) {
    const r = await post(base, `/seasons/${season}/join`, { memleket: 6, name });
    assert.equal(r.status, status, `${JSON.stringify(name)}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.code, code, JSON.stringify(name));
  }
  for (const [memleket, name] of [[6, LONG], [71, RTL], [35, "O'Brien"]]) {
    const r = await post(base, `/seasons/${season}/join`, { memleket, name });
    assert.equal(r.status, 201, `${name}: ${JSON.stringify(r.body)}`);
  }

  browser = await launch();
  // no service worker: the rewritten answers below are the page's own requests
  const context = await browser.newContext({ viewport: { width: 360, height: 740 }, hasTouch: true, isMobile: true, locale: 'tr-TR', serviceWorkers: 'block' });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) problems.push(`console: ${m.text()}`);
  });
  const a11y = [];
  const inert = async (screen) => {
    await page.screenshot({ path: join(ARTEFACTS, `hostile-${screen}.png`), fullPage: true });
    a11y.push(...(await axeCheck(page, `hostile-${screen}`)));
    const found = await page.evaluate(() => ({
      pwned: window.__pwned,
      img: document.querySelectorAll('main img, main script, main b, main iframe').length,
      handlers: document.querySelectorAll('[onerror], [onload], [onclick]').length,
      wide: document.documentElement.scrollWidth - window.innerWidth,
    }));
    assert.equal(found.pwned, undefined, `${screen}: no script ran from a text`);
    assert.equal(found.img, 0, `${screen}: no element came from a text`);
    assert.equal(found.handlers, 0, `${screen}: no handler attribute came from a text`);
    assert.ok(found.wide <= 1, `${screen}: nothing overflows the phone's width (${found.wide} px)`);
  };

  // --- home: the lobby shows the season and its description as written ---------------------
  await page.goto(`${base}/`);
  const entry = page.locator(`section.lobby li[data-season="${season}"]`);
  await entry.waitFor();
  assert.ok((await entry.textContent()).includes(MARKUP), 'the description as text');
  assert.match(await entry.textContent(), /15 boş koltuk/, 'free seats: 19 less the four seated');
  await inert('1-lobby');

  // --- the live season from the lobby: its registration screen, with its join form ---------
  await entry.getByRole('link', { name: /Katıl/ }).click();
  await page.getByRole('heading', { name: 'Bu sezona katıl' }).waitFor();
  await page.locator('#join-name').fill(LOOKALIKE);
  await page.locator('#join-memleket').selectOption('20');
  await page.getByRole('button', { name: 'Katıl' }).click();
  await page.locator('section.join [role=alert]').getByText(/name_taken/).waitFor();
  await inert('2-registration');

  // --- a trial season started from home with a name of one long word ------------------------
  await page.goto(`${base}/`);
  await page.locator('#memleket').selectOption('6');
  await page.locator('#trial-name').fill(LONG);
  await page.getByRole('button', { name: 'Başlat' }).click();
  await page.locator('#token-kept').click();
  const trial = decodeURIComponent(new URL(page.url()).hash.replace('#/s/', ''));
  await waitFor('the trial season', async () => (await page.locator('section.info').textContent()).includes(LONG));

  // a Divan (the report, the leaderboard and the titles appear with it)
  await page.locator('#hold-divan').click();
  await waitFor('Divan 1', async () => (await page.locator('section.info h1').textContent()).includes('Divan 1'));
  await waitFor('the report', async () => (await page.locator('ul.lines.public li').count()) > 0);

  // every answer that names beys is rewritten to carry hostile names, as if one got past
  const rewrite = (pattern, change) =>
    page.route(pattern, async (route) => {
      const answer = await route.fetch();
      const body = await answer.json();
      change(body);
      await route.fulfill({ response: answer, json: body });
    });
  await rewrite(`**/v1/seasons/${trial}`, (s) => {
    for (const b of s.beys ?? []) if (INJECTED[b.seat]) Object.assign(b, { name: INJECTED[b.seat], chosen: true });
  });
  await rewrite(`**/v1/seasons/${trial}/leaderboard`, (l) => {
    for (const b of l.leaderboard) if (INJECTED[b.seat]) Object.assign(b, { name: INJECTED[b.seat], chosen_name: true });
  });
  await page.reload();
  await waitFor('the hostile names in the leaderboard', async () => (await page.locator('table.leaderboard').textContent()).includes(MARKUP));
  const board = await page.locator('table.leaderboard').textContent();
  for (const name of Object.values(INJECTED)) assert.ok(board.includes(name), `as written: ${JSON.stringify(name)}`);
  // a right-to-left name is isolated (FSI … PDI): inside a line it once took the next seat's
  // number into its run, "(4. bey: علی · 6. bey: …)" showing as "(4. bey: 6 · علی. bey: …)"
  assert.ok(board.includes(`\u2068${RTL}\u2069`), 'a right-to-left name, isolated');
  assert.ok((await page.locator('#offer-to').textContent()).includes(MARKUP), 'the offer list names beys as text');
  // the report's lines name seats, with their names beside them as text
  const named = await page.locator('ul.lines .names').allTextContents();
  assert.ok(named.some((t) => Object.values(INJECTED).some((n) => t.includes(n)) || t.includes(LONG)), `names beside lines: ${named}`);
  await inert('3-trial');

  const titled = await page.locator('#p-6 title').textContent();
  assert.ok(titled.includes(LONG), `the map's title names the owner: ${titled}`);
  await inert('4-map');

  // English: the same names, the seat forms in English
  await page.getByRole('button', { name: 'Switch to English' }).click();
  await page.getByRole('heading', { name: 'Divan report' }).waitFor();
  assert.ok((await page.locator('table.leaderboard').textContent()).includes(BIDI), 'a bidi override stays text');
  await inert('5-english');

  // --- a live season opened from home with its press mode (issue 24), shown on its screen ---
  await page.locator('header a.brand').click();
  await page.getByRole('heading', { name: 'Open a live season' }).waitFor();
  assert.equal(await page.locator('#live-press').inputValue(), 'full', 'full by default');
  await page.locator('#live-memleket').selectOption('35');
  await page.locator('#live-press').selectOption('public');
  await page.locator('#live-name').fill(LONG);
  // the close "in your time" is said beside its field in words, the player's time and Istanbul's
  assert.match(await page.locator('#live-closes-when').textContent(), /^Your time: .+ · Istanbul: .+$/);
  assert.doesNotMatch(await page.locator('#live-closes-when').textContent(), /\d{4}-\d\d-\d\dT/);
  // a close too soon is refused naming the earliest one, in words too: never the ISO instant
  const typed = await page.locator('#live-closes').inputValue();
  const soon = await page.evaluate(() => {
    const d = new Date(Date.now() + 10 * 60_000);
    const p = (n) => String(n).padStart(2, '0');
    return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
  });
  await page.locator('#live-closes').fill(soon);
  await page.getByRole('button', { name: 'Open the live season' }).click();
  const tooSoon = page.locator('form.live-create [role=alert]');
  await tooSoon.getByText(/registration_too_soon/).waitFor();
  assert.match(await tooSoon.textContent(), /^Registration can close at .+ \(Istanbul: .+\) at the earliest \(registration_too_soon\)$/);
  assert.doesNotMatch(await tooSoon.textContent(), /\d{4}-\d\d-\d\dT|\$\./, 'no ISO instant, no JSON path');
  await page.locator('#live-closes').fill(typed);
  await inert('6-live-form');
  await page.getByRole('button', { name: 'Open the live season' }).click();
  // the creator's seat key, offered once, and with it the season-admin key
  const seatKey = await page.locator('dialog[open] #token-text').textContent();
  const adminKey = await page.locator('dialog[open] #admin-token-text').textContent();
  assert.match(adminKey, /^sba1\./, 'the admin key is offered for safe keeping');
  await page.locator('#token-kept').click();
  const made = decodeURIComponent(new URL(page.url()).hash.replace('#/s/', ''));
  assert.notEqual(made, trial, 'a new season');
  await page.locator('section.info .badge.press[data-press="public"]').getByText('chat: public only').waitFor();
  const status = await (await fetch(`${base}/v1/seasons/${made}`)).json();
  assert.equal(status.press, 'public', 'the API keeps the mode chosen');
  await inert('7-live-press');

  // --- the creator's second device: the admin key alone is refused (it is kept beside a seat);
  // with the seat's key, the season opens there with its admin card ---
  const other = await browser.newContext({ viewport: { width: 360, height: 740 }, hasTouch: true, isMobile: true, locale: 'tr-TR', serviceWorkers: 'block' });
  const second = await other.newPage();
  second.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  await second.goto(`${base}/`);
  await second.locator('#keys').fill(adminKey);
  await second.locator('form.keys button[type=submit]').click();
  await second.locator('form.keys [role=alert]').getByText(/Yönetim anahtarı koltuğunun anahtarının yanında durur/).waitFor();
  await second.locator('#keys').fill(`${adminKey}\n${seatKey}`);
  await second.locator('form.keys button[type=submit]').click();
  await second.waitForURL(new RegExp(`#/s/${made}$`));
  await second.locator('#season-admin').waitFor();
  const keptThere = await second.evaluate(() => JSON.parse(localStorage.getItem('seksenbir.seasons.v1')));
  assert.deepEqual(keptThere.map((s) => [s.season, s.seat, s.memleket, s.mode, s.token === undefined, s.admin === undefined]), [[made, 1, 35, 'live', false, false]]);
  await other.close();

  // --- the creator's season-admin card (docs/web.md "Season admin"): the admin token was kept
  // on this device; postpone with a hostile reason (shown as text), then cancel, confirmed ---
  const card = page.locator('#season-admin');
  await card.getByRole('heading', { name: 'Season admin' }).waitFor();
  assert.deepEqual(await card.locator('.actions button').allTextContents(), ['Postpone registration', 'Cancel the season']);
  await card.getByRole('button', { name: 'Postpone registration' }).click();
  await card.getByText('Write a reason').waitFor(); // nothing sent without a reason
  const later = new Date(Date.now() + 72 * 3600_000);
  const local = (d) => new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
  await page.locator('#admin-reason').fill(MARKUP);
  await page.locator('#admin-closes').fill(local(later));
  await card.getByRole('button', { name: 'Postpone registration' }).click();
  await card.getByText('Done: Postpone registration.').waitFor();
  // the focus is never left on the page (probe, session 24: the buttons are disabled while an
  // act is sent, and the one pressed lost the focus to <body>): back on the button pressed
  const focused = () => page.evaluate(() => document.activeElement?.id || document.activeElement?.tagName);
  await waitFor('the focus back on the postpone button', async () => (await focused()) === 'admin-postpone', 3_000).catch(async () => {
    assert.equal(await focused(), 'admin-postpone', 'after an act the focus is back on its button');
  });
  await page.locator('ul.lines.announcements').getByText(MARKUP).waitFor(); // the public report, as written
  const postponed = await (await fetch(`${base}/v1/seasons/${made}`)).json();
  assert.deepEqual(postponed.admin_acts.map((a) => [a.act, a.by, a.reason]), [['postpone', 'admin', MARKUP]]);
  assert.equal(Math.floor(Date.parse(postponed.calendar.registration_closes_at) / 60_000), Math.floor(later.getTime() / 60_000));
  await inert('8-admin-postponed');
  await page.locator('#admin-reason').fill('Yeterli bey yok');
  await card.getByRole('button', { name: 'Cancel the season' }).click();
  await card.getByRole('button', { name: 'Keep it' }).click(); // the confirmation, declined
  assert.equal(await focused(), 'admin-cancel', 'declined, the focus is back on the cancel button');
  assert.equal((await (await fetch(`${base}/v1/seasons/${made}`)).json()).cancelled, false);
  await card.getByRole('button', { name: 'Cancel the season' }).click();
  await card.getByRole('button', { name: 'Yes, cancel it' }).click();
  await card.waitFor({ state: 'hidden' }); // nothing is left to do in a cancelled season
  // the card gone with the button pressed, the focus goes to the season's heading
  await waitFor('the focus on the season\'s heading', async () => (await focused()) === 'season-info', 3_000).catch(async () => {
    assert.equal(await focused(), 'season-info', 'the admin card gone, the focus is on the season\'s heading');
  });
  const cancelled = await (await fetch(`${base}/v1/seasons/${made}`)).json();
  assert.equal(cancelled.cancelled, true);
  assert.deepEqual(cancelled.admin_acts.map((a) => a.act), ['postpone', 'cancel']);
  // the screen says so: no registration open, no countdown to a close that will not come
  await page.locator('#countdown').getByText('The season was cancelled.').waitFor();
  assert.equal(await page.locator('#clock-h').textContent(), 'Calendar');
  await page.locator('section.info .badge.cancelled').getByText('The season was cancelled.').waitFor();
  await inert('9-admin-cancelled');

  assert.deepEqual(problems, [], 'no CSP violation, no page error');
  assert.deepEqual(a11y, [], 'axe-core: no serious or critical violation on any screen');
  console.log(`e2e: hostile names and texts on every screen are inert text; screenshots in ${ARTEFACTS}`);
} catch (e) {
  console.error(e);
  process.exitCode = 1;
} finally {
  await browser?.close();
  await stop();
}
