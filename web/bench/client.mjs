// The browser client's figures (issue 22, "Measure"), printed, never asserted: first load on a
// cold and a warm cache, map panning frame times at 4× CPU throttling, and "Divanı topla" to
// the report on screen. Against a stack it starts (tests/e2e/harness.mjs), in the system's
// Chromium. `make bench-web`.
import { gzipSync } from 'node:zlib';
import { launch, startStack } from '../tests/e2e/harness.mjs';

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};

const { base, stop } = await startStack();
const browser = await launch();
try {
  // first load: bytes on the wire (compressed as served by a proxy that compresses) and time
  // until the map is drawn and the page is interactive
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  let bytes = 0;
  page.on('response', async (r) => {
    if (r.url().startsWith(base) && !r.url().includes('/v1/')) bytes += gzipSync(await r.body().catch(() => Buffer.alloc(0))).length;
  });
  const loaded = async () => {
    const t0 = Date.now();
    await page.goto(`${base}/`);
    await page.locator('svg.map g.prov').nth(80).waitFor();
    await page.getByRole('button', { name: 'Başlat' }).waitFor();
    return Date.now() - t0;
  };
  const cold = await loaded();
  const coldBytes = bytes;
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => true));
  const warm = [];
  for (let i = 0; i < 5; i++) warm.push(await loaded());
  console.log(`first load, cold: ${(coldBytes / 1024).toFixed(1)} KB compressed, interactive in ${cold} ms (target ≤ 200 KB, ≤ 2000 ms)`);
  console.log(`first load, warm: p50 ${quantile(warm, 0.5)} ms over ${warm.length} loads (target ≤ 500 ms)`);

  // Divanı topla to the report on screen
  await page.locator('#memleket').selectOption('6');
  await page.getByRole('button', { name: 'Başlat' }).click();
  await page.locator('#p-6.mine').waitFor();
  const divans = [];
  for (let n = 1; n <= 8; n++) {
    const t0 = Date.now();
    await page.locator('#hold-divan').click();
    await page.locator('section.info h1').getByText(`Divan ${n} `).waitFor({ timeout: 30_000 });
    await page.locator('#divan-pick').waitFor();
    divans.push(Date.now() - t0);
  }
  console.log(`Divanı topla → report on screen: p50 ${quantile(divans, 0.5)} ms, max ${Math.max(...divans)} ms over ${divans.length} Divans (target p50 ≤ 500 ms)`);

  // panning the map at 4× CPU throttling: frame intervals while dragging
  const cdp = await context.newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  const box = await page.locator('svg.map').boundingBox();
  await page.evaluate(() => {
    window.__frames = [];
    let last = performance.now();
    const step = (now) => {
      window.__frames.push(now - last);
      last = now;
      if (window.__frames.length < 100000) requestAnimationFrame(step);
    };
    requestAnimationFrame(step);
  });
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  for (let i = 0; i < 120; i++) {
    await page.mouse.move(box.x + box.width / 2 + 200 * Math.sin(i / 10), box.y + box.height / 2 + 80 * Math.cos(i / 10));
  }
  await page.mouse.up();
  const frames = (await page.evaluate(() => window.__frames)).slice(2);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
  console.log(`map panning at 4× CPU throttling: p95 frame ${quantile(frames, 0.95).toFixed(1)} ms, p50 ${quantile(frames, 0.5).toFixed(1)} ms over ${frames.length} frames (target p95 ≤ 16.7 ms)`);
  await context.close();
} finally {
  await browser.close();
  await stop();
}
