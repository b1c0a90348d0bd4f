// The browser client's bench (issue 22; `make bench-web`): figures printed, nothing asserted
// (timings belong here, not in tests). Against a stack it starts (`seksenbir up` on
// WEB_E2E_PORT, as the end-to-end tests; WEB_E2E_URL for a running one), in the system's
// headless Chromium:
// - cold first load (a fresh browser context: no HTTP cache, no service worker): bytes
//   transferred as the network saw them (compressed, headers included) and the time until
//   home is interactive (its heading, the 81 provinces and the memleket list are there);
// - warm load: the same context again (HTTP cache and service worker);
// - panning the season map by dragging at 4× CPU throttling (Emulation.setCPUThrottlingRate):
//   frame times from requestAnimationFrame, p50 / p95 / max;
// - "Divanı topla" to the report of that Divan on screen, p50 over several Divans.
// Targets (issue 22): cold ≤ 200 KB and ≤ 2 s, warm ≤ 0.5 s, p95 frame ≤ 16.7 ms, Divan →
// report ≤ 0.5 s p50. WEB_BENCH_RUNS (5) loads and Divans each; WEB_BENCH_PARTS picks parts.
import { launch, startStack, waitFor } from '../tests/e2e/harness.mjs';

const RUNS = Number(process.env.WEB_BENCH_RUNS ?? 5);
// WEB_BENCH_PARTS=load,pan,divan (all by default): only those
const PARTS = new Set((process.env.WEB_BENCH_PARTS ?? 'load,pan,divan').split(','));

const q = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
};
const ms = (x) => `${x.toFixed(1)} ms`;
const kb = (x) => `${(x / 1024).toFixed(1)} KB`;

async function transferred(page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  const seen = { bytes: 0, requests: 0, encodings: new Set() };
  cdp.on('Network.responseReceived', (e) => {
    const enc = Object.entries(e.response.headers).find(([k]) => k.toLowerCase() === 'content-encoding');
    if (enc && new URL(e.response.url).pathname !== '/health') seen.encodings.add(enc[1]);
  });
  cdp.on('Network.loadingFinished', (e) => {
    seen.bytes += e.encodedDataLength;
    seen.requests += 1;
  });
  return seen;
}

/** Navigate to home and wait until it can be used; ms from the start of the navigation. */
async function loadHome(page, base) {
  await page.goto(`${base}/`, { waitUntil: 'commit' });
  await waitFor('home interactive', () =>
    page.evaluate(() => document.querySelectorAll('svg.map g.prov').length === 81 && document.querySelector('#memleket option[value="6"]') !== null),
  20_000);
  return page.evaluate(() => performance.now()); // since this document's navigation began
}

async function coldAndWarm(browser, base) {
  const cold = [];
  const warm = [];
  let coldBytes = [];
  let warmBytes = [];
  let encodings = new Set();
  for (let i = 0; i < RUNS; i++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'tr-TR' });
    const page = await context.newPage();
    const seen = await transferred(page);
    cold.push(await loadHome(page, base));
    await waitFor('network quiet', async () => {
      const n = seen.requests;
      await new Promise((r) => setTimeout(r, 300));
      return n === seen.requests;
    });
    coldBytes.push(seen.bytes);
    encodings = new Set([...encodings, ...seen.encodings]);
    await page.evaluate(async () => (await navigator.serviceWorker.getRegistration()) ?? null);
    await waitFor('the worker active', () => page.evaluate(async () => (await navigator.serviceWorker.getRegistration())?.active != null));
    const before = seen.bytes;
    warm.push(await loadHome(page, base));
    warmBytes.push(seen.bytes - before);
    await context.close();
  }
  return { cold, warm, coldBytes, warmBytes, encodings };
}

async function season(browser, base, viewport) {
  const context = await browser.newContext({ viewport, locale: 'tr-TR' });
  const page = await context.newPage();
  await loadHome(page, base);
  await page.locator('#memleket').selectOption('6');
  await page.getByRole('button', { name: 'Başlat' }).click();
  await page.waitForURL(/#\/s\/[0-9a-f]+$/);
  await page.locator('#token-kept').click();
  await page.locator('#p-6.mine').waitFor();
  return { context, page };
}

async function pan(browser, base, viewport) {
  const { context, page } = await season(browser, base, viewport);
  const cdp = await context.newCDPSession(page);
  const box = await page.locator('svg.map').boundingBox();
  const cx = box.x + box.width / 2;
  const cy = box.y + box.height / 2;
  // zoomed in, as a player pans on a phone
  await page.mouse.move(cx, cy);
  for (let i = 0; i < 3; i++) await page.mouse.wheel(0, -300);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  await page.evaluate(() => {
    window.__frames = [];
    let last = performance.now();
    const tick = (t) => {
      window.__frames.push(t - last);
      last = t;
      if (window.__recording) requestAnimationFrame(tick);
    };
    window.__recording = true;
    requestAnimationFrame(tick);
  });
  await page.mouse.down();
  const dx = box.width * 0.3;
  const dy = box.height * 0.2;
  for (let k = 0; k < 4; k++) {
    const s = k % 2 === 0 ? 1 : -1;
    await page.mouse.move(cx + s * dx, cy + s * dy, { steps: 40 });
  }
  await page.mouse.up();
  const frames = await page.evaluate(() => {
    window.__recording = false;
    return window.__frames.slice(1);
  });
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
  await context.close();
  return frames;
}

async function divans(browser, base) {
  const { context, page } = await season(browser, base, { width: 1280, height: 800 });
  const times = [];
  for (let n = 1; n <= RUNS; n++) {
    await waitFor('Divanı topla enabled', async () => !(await page.locator('#hold-divan').isDisabled()));
    times.push(
      await page.evaluate(
        (n) =>
          new Promise((resolve) => {
            const h1 = () => document.querySelector('section.info h1')?.textContent ?? '';
            const lines = () => document.querySelectorAll('ul.lines.public li').length > 0;
            const t0 = performance.now();
            const done = () => h1().includes(`Divan ${n}`) && lines();
            const watch = new MutationObserver(() => {
              if (done()) {
                watch.disconnect();
                resolve(performance.now() - t0);
              }
            });
            watch.observe(document.body, { subtree: true, childList: true, characterData: true });
            document.querySelector('#hold-divan').click();
          }),
        n,
      ),
    );
  }
  await context.close();
  return times;
}

const { base, stop } = await startStack();
let browser;
try {
  browser = await launch();
  console.log(`bench-web: ${base}, ${RUNS} runs each, Chromium headless`);
  const loads = PARTS.has('load') ? await coldAndWarm(browser, base) : null;
  if (loads) console.log(`cold first load: ${kb(q(loads.coldBytes, 50))} transferred (p50; content-encoding: ${[...loads.encodings].join(', ') || 'none'}), interactive p50 ${ms(q(loads.cold, 50))}, max ${ms(Math.max(...loads.cold))}   [target ≤ 200 KB, ≤ 2000 ms]`);
  if (loads) console.log(`warm load:       ${kb(q(loads.warmBytes, 50))} transferred (p50), interactive p50 ${ms(q(loads.warm, 50))}, max ${ms(Math.max(...loads.warm))}   [target ≤ 500 ms]`);
  for (const [name, viewport] of !PARTS.has('pan') ? [] : [['desktop 1280×800', { width: 1280, height: 800 }], ['phone 360×740', { width: 360, height: 740 }]]) {
    const frames = await pan(browser, base, viewport);
    console.log(`pan at 4× CPU throttling, ${name}: ${frames.length} frames, p50 ${ms(q(frames, 50))}, p95 ${ms(q(frames, 95))}, max ${ms(Math.max(...frames))}   [target p95 ≤ 16.7 ms]`);
  }
  const d = PARTS.has('divan') ? await divans(browser, base) : null;
  if (d) console.log(`Divanı topla → report on screen: p50 ${ms(q(d, 50))}, max ${ms(Math.max(...d))} over ${d.length} Divans   [target p50 ≤ 500 ms]`);
} catch (e) {
  console.error(e);
  process.exitCode = 1;
} finally {
  await browser?.close();
  await stop();
}
