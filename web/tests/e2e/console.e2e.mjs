// End to end (issue 26): the ops and auditor console (`#/console`) in headless Chromium against
// a real stack (`seksenbir up` on WEB_E2E_PORT, with an ops and an auditor token of its own).
// A trial season is played over the API until its bey betrays a partner (a disputed Divan);
// then, in the browser: ops explain that Divan on the map and the drawn advances, supports and
// dice match `seksenbir explain --json`; a what-if removing an advance flips its battle and
// writes nothing; a correction is dry-run, applied and shown in the public report; verify,
// the export and a fork; an auditor sees the betrayal with its evidence (treaty, orders,
// battle) and the redacted export, and never a secret (canaries in the page, its requests and
// its answers); a bey's token gets nothing from the console's endpoints; axe-core is clean on
// every screen. Screenshots go to web/artefacts/ (git-ignored).
//
// WEB_E2E_URL=http://127.0.0.1:PORT with WEB_E2E_OPS_TOKEN and WEB_E2E_AUDITOR_TOKEN runs it
// against a stack already running (tests/e2e/harness.mjs).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ARTEFACTS, axeCheck, launch, startStack, waitFor } from './harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const BIN = process.env.SEKSENBIR_BIN ?? join(here, '..', '..', '..', '.venv', 'bin', 'seksenbir');
// the catalogue's words (ADR-170; tests/web/test_catalogue_words.py keeps the file fresh)
const WORDS = JSON.parse(readFileSync(join(here, '..', '..', 'src', 'api', 'words.json'), 'utf8'));
// The store the stack uses, for the CLI's `--dsn` (its own default is another database):
// startStack's, a database of the stack's own, or SEKSENBIR_PG_DSN when given
let STORE_DSN;
const AUDITOR = process.env.WEB_E2E_AUDITOR_TOKEN ?? `e2e-auditor-${randomBytes(16).toString('hex')}`;
process.env.SEKSENBIR_AUDITOR_TOKENS = AUDITOR; // the stack startStack starts takes it

let base = '';

/** Probe (session 23): on a 360-px phone the season's heading (its 32-digit id) and the ops-read
 * trail's instants made the page 504 px wide: nothing may be wider than the screen. */
async function noWiderThanTheScreen(page, where) {
  const { scroll, width, wide } = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    width: window.innerWidth,
    wide: [...document.querySelectorAll('main *')].filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1).slice(0, 3).map((e) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}: ${e.textContent.slice(0, 40)}`),
  }));
  assert.ok(scroll <= width, `${where}: the page is ${scroll} px wide on a ${width}-px screen (${wide.join('; ')})`);
}
/** Probe (session 23): the console showed recorded instants as raw ISO with microseconds. Each
 * is a <time>: Istanbul's time to the second for people ("7 Dec 2026, 18:21:05"), the exact
 * instant as recorded in its title and the same instant in its datetime. */
async function instantsAreReadable(page, scope, where) {
  const times = await page.locator(`${scope} time`).evaluateAll((ts) => ts.map((t) => [t.textContent, t.title, t.getAttribute('datetime')]));
  assert.ok(times.length > 0, `${where}: no instant shown`);
  for (const [text, title, datetime] of times) {
    assert.match(text, /^\d{1,2} \S+ \d{4},? \d{2}:\d{2}:\d{2}$/, `${where}: "${text}" is not Istanbul time to the second`);
    assert.match(title, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?([+-]\d{2}:\d{2}|Z)$/, `${where}: the title "${title}" is not the recorded instant`);
    assert.equal(Date.parse(datetime), Date.parse(title), `${where}: datetime ${datetime} is not ${title}`);
    const ist = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Istanbul', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' }).format(new Date(title));
    assert.ok(text.endsWith(ist), `${where}: "${text}" is not ${title} in Istanbul (${ist})`);
  }
}
async function api(method, path, token, body) {
  const headers = { 'Content-Type': 'application/json', 'Idempotency-Key': randomBytes(16).toString('hex') };
  if (token) headers.Authorization = `Bearer ${token}`;
  const r = await fetch(`${base}/v1${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = text;
  }
  return { status: r.status, body: json };
}

/** A trial season played until its bey betrays a treaty partner: every offer received is
 * accepted and pacts are offered to neighbours; once a treaty is in force with a bey owning a
 * neighbouring province, the bey advances into it. Seed 7 from Ankara betrays at Divan 4. */
async function betrayingSeason() {
  const board = (await api('GET', '/board')).body;
  const nb = new Map(board.provinces.map((p) => [p.plate, p.neighbours]));
  const created = await api('POST', '/seasons', null, { memleket: 6, seed: '7' });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const { season_id: season, token, seat } = created.body;
  for (let divan = 1; divan <= 10; divan++) {
    const me = (await api('GET', `/seasons/${season}/me`, token)).body;
    for (const o of me.offers_in) await api('POST', `/seasons/${season}/offers/${o.from}/answer`, token, { answer: 'accept' });
    const map = (await api('GET', `/seasons/${season}/map`)).body;
    const partners = new Set((await api('GET', `/seasons/${season}/me`, token)).body.treaties.map((t) => t.partner));
    const mine = Object.entries(map.provinces).filter(([, p]) => p.owner === seat).map(([k, p]) => [Number(k), p]);
    const orders = [];
    for (const [plate, p] of mine) {
      const hit = nb.get(plate).find((q) => partners.has(map.provinces[String(q)].owner));
      if (hit && p.units >= 2) {
        orders.push({ province: plate, kind: 'advance', target: hit, units: p.units - 1 });
        break;
      }
    }
    // and a support into a province neither its own nor a partner's, where no ally attacks:
    // void, an order that did nothing (R-5.3), which the console must say in words (its units
    // stay home)
    const busy = new Set(orders.map((o) => o.province));
    for (const [plate, p] of mine) {
      const free = nb.get(plate).find((q) => {
        const owner = map.provinces[String(q)].owner;
        return owner !== seat && !partners.has(owner);
      });
      if (!busy.has(plate) && free && p.units >= 2) {
        orders.push({ province: plate, kind: 'support', target: free, units: 1 });
        break;
      }
    }
    const owners = new Set(mine.flatMap(([plate]) => nb.get(plate).map((q) => map.provinces[String(q)].owner)));
    for (const o of owners) if (o && o !== seat && !partners.has(o)) await api('POST', `/seasons/${season}/offers`, token, { to: o, kind: 'pact' });
    assert.equal((await api('POST', `/seasons/${season}/orders`, token, { orders, divan })).status, 200);
    assert.equal((await api('POST', `/seasons/${season}/divans`, token, { divan })).status, 202);
    await waitFor(`Divan ${divan}`, async () => (await api('GET', `/seasons/${season}`)).body.divan >= divan);
    await waitFor(`Divan ${divan}'s report`, async () => (await api('GET', `/seasons/${season}/reports`)).body.reports.some((r) => r.divan === divan));
    const betrayals = (await api('GET', `/seasons/${season}/betrayals`)).body.betrayals;
    if (betrayals.length) return { season, token, seat, divan, betrayal: betrayals[0] };
  }
  throw new Error('no betrayal in 10 Divans');
}

async function main() {
  const stack = await startStack();
  base = stack.base;
  STORE_DSN = stack.dsn;
  const ops = stack.ops;
  assert.ok(ops, 'an ops token (WEB_E2E_OPS_TOKEN with WEB_E2E_URL)');
  const browser = await launch();
  const a11y = [];
  const problems = [];
  try {
    const played = await betrayingSeason();
    const { season, divan, betrayal } = played;
    console.log(`console e2e: season ${season}, betrayal at Divan ${divan} (${JSON.stringify(betrayal)})`);
    const cli = JSON.parse(execFileSync(BIN, ['explain', season, String(divan), '--json', '--dsn', STORE_DSN], { encoding: 'utf8' }));

    await beyGetsNothing(played);
    await opsSession(browser, played, ops, cli, a11y, problems);
    await auditorSession(browser, played, ops, a11y, problems);
  } finally {
    await browser.close();
    await stack.stop();
  }
  assert.deepEqual(problems, [], 'no page errors');
  assert.deepEqual(a11y, [], 'axe-core: no serious or critical violations');
  console.log('console e2e: ok');
}

/** A live season still in registration (chat is open from the join, issue 24) where one bey
 * writes to everyone, the other reports it and ops hide it: two moderation acts. */
async function moderatedSeason(ops) {
  const close = new Date(Date.now() + 2 * 3600_000 + 3 * 3600_000).toISOString().replace('Z', '+03:00'); // Istanbul time
  const created = await api('POST', '/seasons', ops, { mode: 'live', registration_closes_at: close, divan_interval_seconds: 3600 });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const season = created.body.season_id;
  const player = await api('POST', '/players', null, {});
  assert.equal(player.status, 201, JSON.stringify(player.body));
  const a = await api('POST', `/seasons/${season}/join`, null, { memleket: 6, player_key: player.body.player_key });
  assert.equal(a.status, 201, JSON.stringify(a.body));
  const b = await api('POST', `/seasons/${season}/join`, null, { memleket: 71 });
  assert.equal(b.status, 201, JSON.stringify(b.body));
  const text = `chat-canary-${randomBytes(12).toString('hex')}`;
  const sent = await api('POST', `/seasons/${season}/messages`, a.body.token, { to: 'all', text });
  assert.equal(sent.status, 201, JSON.stringify(sent.body));
  const id = sent.body.message_id;
  assert.equal((await api('POST', `/seasons/${season}/messages/${id}/report`, b.body.token, {})).status, 201);
  const hidden = await api('POST', `/seasons/${season}/messages/${id}/hide`, ops, { reason: 'R-15.2: e2e' });
  assert.equal(hidden.status, 200, JSON.stringify(hidden.body));
  return { season, text, message: id, tokens: [a.body.token, b.body.token], player: player.body.player_id, key: player.body.player_key };
}

/** A bey's token on every console endpoint: 403, nothing else. */
async function beyGetsNothing({ season, token, divan }) {
  const fix = { correction: { kind: 'gold', seat: 1, gold: 1 }, reason: 'no' };
  const calls = [
    ['GET', `/ops/seasons/${season}/divans/${divan}/explain`],
    ['POST', `/ops/seasons/${season}/divans/${divan}/what-if`, {}],
    ['POST', `/ops/seasons/${season}/corrections/dry-run`, fix],
    ['POST', `/ops/seasons/${season}/corrections`, fix],
    ['GET', `/ops/seasons/${season}/verify`],
    ['GET', `/ops/seasons/${season}/export`],
    ['GET', `/seasons/${season}/export`],
    ['GET', `/seasons/${season}/audit/ops-reads`],
    ['GET', `/seasons/${season}/audit/betrayals`],
    ['GET', `/seasons/${season}/audit/chat-acts`],
    ['POST', `/seasons/${season}/fork`, { divan, seat: 1 }],
  ];
  for (const [method, path, body] of calls) {
    const r = await api(method, path, token, body);
    assert.equal(r.status, 403, `${method} ${path} with a bey's token: ${r.status} ${JSON.stringify(r.body)}`);
    assert.equal(r.body.code, 'forbidden');
  }
}

function watch(page, problems) {
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) problems.push(`console: ${m.text()}`);
  });
}

async function login(page, role, token) {
  await page.goto(`${base}/#/console`);
  await page.locator('#console-token').waitFor();
  await page.locator(`input[name=console-role][value=${role}]`).check();
  await page.locator('#console-token').fill(token);
  await page.getByRole('button', { name: /^(Gir|Enter)$/ }).click();
  await page.locator('#console-forget').waitFor();
}

async function opsSession(browser, played, ops, cli, a11y, problems) {
  const { season, divan } = played;
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
  const page = await context.newPage();
  watch(page, problems);
  const shot = async (step) => {
    await page.screenshot({ path: join(ARTEFACTS, `console-ops-${step}.png`), fullPage: true });
    a11y.push(...(await axeCheck(page, `console-ops-${step}`)));
  };
  try {
    await page.goto(`${base}/#/console`);
    await page.locator('#console-token').waitFor();
    await shot('1-login');
    await login(page, 'ops', ops);
    assert.equal(await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage })).then((s) => s.includes(ops)), false, 'the token is never stored');
    // a season found from a bey's report link
    await page.locator('#console-season').fill(`${base}/#/s/${season}`);
    await page.getByRole('button', { name: /^(Aç|Open)$/ }).click();
    await page.locator('#console-divans').waitFor();
    assert.equal(await page.locator('svg.map g.prov').count(), 81);
    await page.locator('.console-trail').waitFor();
    await instantsAreReadable(page, '.console-trail', 'the ops-read trail');
    await shot('2-season');
    await page.setViewportSize({ width: 360, height: 740 }); // a phone: nothing wider than it
    await noWiderThanTheScreen(page, 'the season on a phone');
    await shot('2-season-phone');
    await page.setViewportSize({ width: 1280, height: 900 });

    // Divan 1 explained: the orders that did nothing (the void support) as `explain --json` has
    // them, each reason in the catalogue's words with its code and rule beside them (probe,
    // session 24: "void_support (R-5.3)", codes only)
    const divan1 = JSON.parse(execFileSync(BIN, ['explain', season, '1', '--json', '--dsn', STORE_DSN], { encoding: 'utf8' }));
    await page.locator('#console-divans button[data-divan="1"]').click();
    await page.locator('#console-explain[data-divan="1"]').waitFor();
    const dropped = await page.locator('#console-dropped li').evaluateAll((ls) => ls.map((l) => [l.dataset.reason, l.textContent]));
    assert.ok(divan1.explanation.dropped.length > 0, 'a dropped order to say (the void support each Divan)');
    assert.deepEqual(dropped.map(([reason]) => reason), divan1.explanation.dropped.map((d) => d.reason), 'the dropped orders are explain\'s');
    for (const [[reason, text], d] of dropped.map((x, i) => [x, divan1.explanation.dropped[i]])) {
      assert.ok(text.endsWith(` (${reason} · ${d.rule})`) && !text.includes(`— ${reason}`), `a dropped order's reason in words: ${text}`);
    }

    // explain the disputed Divan on the map
    const before = (await api('GET', `/seasons/${season}`)).body.version;
    await page.locator(`#console-divans button[data-divan="${divan}"]`).click();
    await page.locator(`#console-explain[data-divan="${divan}"]`).waitFor();
    await page.locator('#console-order-sets tbody tr').first().waitFor();
    await shot('3-explain');
    await page.setViewportSize({ width: 360, height: 740 }); // a phone: the same screen, axe-clean
    await noWiderThanTheScreen(page, 'the explained Divan on a phone');
    await shot('3-explain-phone');
    await page.setViewportSize({ width: 1280, height: 900 });
    const battles = cli.explanation.battles;
    assert.ok(battles.length > 0, 'the disputed Divan has battles');
    for (const b of battles) {
      const card = page.locator(`article.battle-card[data-target="${b.target}"]`);
      assert.equal(await card.getAttribute('data-outcome'), b.outcome);
      const supports = await card.locator('li.support').evaluateAll((ls) => ls.map((l) => [Number(l.dataset.seat), Number(l.dataset.origin), l.dataset.counted === 'true', l.dataset.why]));
      assert.deepEqual(supports, b.supports.map((s) => [s.seat, s.origin, s.counted, s.why]), `supports of ${b.target}`);
      // each support's why in the catalogue's words, its code and rules beside them (round 1
      // left it: "(own_province; R-5.3)", the code only)
      const said = await card.locator('li.support').allTextContents();
      for (const [text, s] of said.map((t, i) => [t, b.supports[i]])) {
        const words = WORDS.why[s.why];
        assert.ok(words && [words.tr, words.en].some((w) => text.endsWith(`: ${w} (${s.why} · ${s.rules.join(', ')})`)), `a support's why in words: ${text}`);
      }
      const dice = await card.locator('li.die').evaluateAll((ls) => ls.map((l) => [l.dataset.side, Number(l.dataset.value)]));
      assert.deepEqual(dice, (b.dice ?? []).map((d) => [d.side, d.value]), `dice of ${b.target}`);
    }
    // the lines drawn on the map: every advance and every support of every battle
    const drawn = await page.locator('svg.map g.arrows line').evaluateAll((ls) => ls.map((l) => `${l.dataset.from}>${l.dataset.to}:${l.dataset.seat}:${[...l.classList].find((c) => c !== 'arrow')}`).sort());
    const expected = battles
      .flatMap((b) => [
        ...b.groups.flatMap((g) => g.advances.map((a) => `${a.origin}>${b.target}:${a.seat}:${a.betrayal ? 'betrayal' : 'advance'}`)),
        ...b.supports.map((s) => `${s.origin}>${s.target}:${s.seat}:${s.counted ? 'support' : 'void'}`),
      ])
      .sort();
    assert.deepEqual(drawn, expected, 'the map draws what explain says');
    // the orders as submitted, and when: the bey's sealed set before the lock
    const sealedRow = await page.locator('#console-order-sets tbody tr').evaluateAll((rs) => rs.map((r) => [...r.cells].map((c) => c.querySelector('time')?.title ?? c.textContent)));
    // a seat as everywhere else in the console, "3. bey" / "Bey 3" (probe, session 24: a bare number)
    assert.ok(sealedRow.length > 0 && sealedRow.every((r) => /^(\d+\. bey|Bey \d+)$/.test(r[0])), `the seat column: ${JSON.stringify(sealedRow.map((r) => r[0]))}`);
    const beyRows = sealedRow.filter((r) => r[0] === `${played.seat}. bey` || r[0] === `Bey ${played.seat}`);
    assert.ok(beyRows.some((r) => /^(yes|evet)$/.test(r[2]) && /^(yes|evet)$/.test(r[3]) && /\+03:00$/.test(r[1])), JSON.stringify(beyRows));
    await instantsAreReadable(page, '#console-order-sets', 'the orders as submitted');

    // a what-if that flips the betrayal's battle: the traitor's advance removed
    const target = betrayalTarget(played, cli);
    const card = page.locator(`article.battle-card[data-target="${target.target}"]`);
    await card.locator('p.advance button.prefill-remove').first().click();
    await page.locator('#whatif-run').click();
    await page.locator('#whatif-changed[data-changed="true"]').waitFor();
    const flipped = page.locator(`.wi-outcome[data-target="${target.target}"]`);
    assert.notEqual(await flipped.getAttribute('data-outcome'), target.outcome, 'the what-if flips the battle');
    // the outcome in words, the province by its name with the plate (session 22's probe: codes)
    // the reports' words (the catalogue's; probe, session 24: "alındı / tutuldu / denge")
    assert.match(await flipped.textContent(), /^(düştü|direndi|kimse alamadı|–)$/); // Turkish, the default
    const row = await page.locator('#whatif-result tr', { has: flipped }).textContent();
    assert.ok(row.includes(`(${target.target})`) && !/taken|held|standoff/.test(row), row);
    // a seat as the player's client names it, "3. bey" in Turkish (round 1: "Bey 3")
    const holders = await page.locator('#whatif-provinces tbody td:not(:first-child)').allTextContents();
    assert.ok(holders.length > 0 && holders.every((c) => /^(\d+\. bey|milis) · \d+$/.test(c)), JSON.stringify(holders));
    const seats = await page.locator('#whatif-beys tbody td:first-child').allTextContents();
    assert.ok(seats.every((c) => /^\d+\. bey$/.test(c)), JSON.stringify(seats));
    assert.ok(!/\bBey \d/.test(await page.locator('#whatif-result').textContent()), 'no "Bey n" in Turkish');
    assert.ok((await page.locator('g.prov.whatif').count()) > 0, 'the changed provinces are marked on the map');
    await shot('4-what-if');
    assert.equal((await api('GET', `/seasons/${season}`)).body.version, before, 'explain and what-if write nothing');

    // a correction: dry run first, then applied, then in the public report
    const victim = played.betrayal.victim;
    const reason = `e2e console: Divan ${divan} disputed ${randomBytes(4).toString('hex')}`;
    await page.locator('#fix-kind').selectOption('province');
    await page.locator('#fix-province').fill(String(target.target));
    await page.locator('#fix-owner').fill(String(victim));
    await page.locator('#fix-units').fill('3');
    await page.locator('#fix-reason').fill(reason);
    await page.locator('#fix-apply').click();
    await page.locator('#fix-needs-dry').waitFor();
    assert.equal((await api('GET', `/seasons/${season}`)).body.version, before, 'nothing applied before a dry run');
    await page.locator('#fix-dry-run').click();
    await page.locator('#fix-dry[data-changed="true"]').waitFor();
    assert.equal((await api('GET', `/seasons/${season}`)).body.version, before, 'a dry run writes nothing');
    await shot('5-dry-run');
    await page.locator('#fix-apply').click();
    await page.locator('#fix-applied').waitFor();
    await page.locator('#fix-public').getByText(reason).waitFor();
    const owner = (await api('GET', `/seasons/${season}/map`)).body.provinces[String(target.target)].owner;
    assert.equal(owner, victim, 'the correction is applied');

    // verify and the export
    await page.locator('#verify-do').click();
    await page.locator('#verify-result [data-ok="true"]').waitFor();
    await page.locator('#export-do').click();
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#export-link a.download').click()]);
    const first = readFileSync(await download.path(), 'utf8').split('\n')[0];
    assert.equal(JSON.parse(first).season_id, season);
    // a fork of the disputed Divan, for a reproduction
    await page.locator('#fork-do').click();
    await page.locator('#fork-result code.tok').waitFor();
    await shot('6-verified');

    // the correction in the public report, as anyone sees it
    const pub = await context.newPage();
    await pub.goto(`${base}/#/s/${season}`);
    await pub.getByText(reason).first().waitFor();
    await pub.close();
  } catch (e) {
    await page.screenshot({ path: join(ARTEFACTS, 'console-ops-failed.png'), fullPage: true }).catch(() => undefined);
    throw e;
  } finally {
    await context.close();
  }
}

/** The betrayal's battle in the explanation (its advance flagged), else the first battle. */
function betrayalTarget(played, cli) {
  const battles = cli.explanation.battles;
  return battles.find((b) => b.target === played.betrayal.province) ?? battles[0];
}

async function auditorSession(browser, played, ops, a11y, problems) {
  const { season, token } = played;
  // canaries: the bey's token, ops' token, the seed salt and the bey's gold (R-14)
  const exported = await fetch(`${base}/v1/ops/seasons/${season}/export`, { headers: { Authorization: `Bearer ${ops}` } }).then((r) => r.text());
  const created = JSON.parse(exported.split('\n')[1]);
  const salt = JSON.parse(created.data).seed_salt;
  const gold = (await api('GET', `/seasons/${season}/me`, token)).body.gold;
  const chat = await moderatedSeason(ops);
  const canaries = [token.split('.').pop(), ops, AUDITOR, salt, `"gold":${gold}`, chat.text, ...chat.tokens.map((t) => t.split('.').pop()), chat.key].filter(Boolean);
  assert.ok(salt, 'the seed salt is a canary');
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
  const page = await context.newPage();
  watch(page, problems);
  const seen = [];
  page.on('request', (r) => seen.push(`${r.url()} ${r.postData() ?? ''}`));
  page.on('response', async (r) => {
    try {
      seen.push(await r.text());
    } catch {
      /* a redirect or a download: no body here */
    }
  });
  const shot = async (step) => {
    await page.screenshot({ path: join(ARTEFACTS, `console-auditor-${step}.png`), fullPage: true });
    a11y.push(...(await axeCheck(page, `console-auditor-${step}`)));
  };
  try {
    await login(page, 'auditor', AUDITOR);
    await page.locator('#audit-memleket').fill('6');
    await page.locator('#audit-season').fill(season);
    await page.getByRole('button', { name: /^(Göster|Show)$/ }).click();
    const item = page.locator(`section.audit-season[data-season="${season}"] li.betrayal`).first();
    await item.waitFor();
    await item.locator('.evidence-treaty').waitFor();
    await item.locator('.evidence-orders').waitFor();
    await item.locator('.evidence-battle').waitFor();
    // the ops-read trail of the season: ops' explain and what-if of the disputed Divan
    await page.locator(`section.audit-season[data-season="${season}"] .console-trail`).getByText(`divans/${played.divan}/what-if`).first().waitFor();
    await shot('1-history');
    await page.locator('button.audit-export').first().click();
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('a.download').first().click()]);
    const file = readFileSync(await download.path(), 'utf8');
    assert.match(file.split('\n')[0], /"redacted"/, 'the auditor gets the redacted export');
    seen.push(file, await page.content());
    await shot('2-export');
    // the moderated season's chat acts (R-15.2): reported and hidden, by whom and when; no text
    await page.locator('#audit-memleket').fill('');
    await page.locator('#audit-season').fill(chat.season);
    await page.getByRole('button', { name: /^(Göster|Show)$/ }).click();
    const acts = page.locator(`section.audit-season[data-season="${chat.season}"] section.chat-acts`);
    await acts.locator('tbody tr').nth(1).waitFor();
    const rows = await acts.locator('tbody tr').allTextContents();
    assert.ok(rows.some((r) => /bildirildi|reported/.test(r) && r.includes(String(chat.message))), rows.join(' | '));
    assert.ok(rows.some((r) => /gizlendi|hidden/.test(r) && r.includes(String(chat.message))), rows.join(' | '));
    seen.push(await page.content());
    await shot('3-chat-acts');
    // by player (its seat from the season's seat_bound.v1): the season is found for it, and not
    // for a player who holds no seat there
    await page.locator('#audit-player').fill(chat.player);
    await page.getByRole('button', { name: /^(Göster|Show)$/ }).click();
    await page.locator(`section.audit-season[data-season="${chat.season}"]`).waitFor();
    await page.locator('#audit-player').fill(`${chat.player.slice(0, -1)}${chat.player.endsWith('0') ? '1' : '0'}`);
    await Promise.all([page.waitForResponse((r) => r.url().endsWith(`/seasons/${chat.season}/export`)), page.getByRole('button', { name: /^(Göster|Show)$/ }).click()]);
    await page.locator('#audit-results p').first().waitFor(); // "no betrayal", after the export is read
    assert.equal(await page.locator(`section.audit-season[data-season="${chat.season}"]`).count(), 0, 'no seat of that player there');
    seen.push(await page.content());
    await shot('4-player');
  } catch (e) {
    await page.screenshot({ path: join(ARTEFACTS, 'console-auditor-failed.png'), fullPage: true }).catch(() => undefined);
    throw e;
  } finally {
    await context.close();
  }
  const all = seen.join('\n');
  for (const c of canaries.filter((c) => c !== AUDITOR)) assert.equal(all.includes(c), false, `a secret reached the auditor's browser: ${c.slice(0, 12)}…`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
