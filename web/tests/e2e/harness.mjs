// What the end-to-end tests share: the stack they start (`seksenbir up` on WEB_E2E_PORT with an
// ops token of its own), the system's Chromium (never a downloaded one), polling with a deadline.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { stackEnv } from './stack_env.mjs';

const here = dirname(fileURLToPath(import.meta.url));
export const ARTEFACTS = join(here, '..', '..', 'artefacts');
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];
export const DEADLINE_MS = 30_000;

export function fail(message) {
  console.error(`e2e: ${message}`);
  process.exit(1);
}

if (!existsSync(CHROMIUM)) fail(`no browser at ${CHROMIUM}: apt-get install -y chromium (the test never downloads one)`);
mkdirSync(ARTEFACTS, { recursive: true });

export async function waitFor(what, check, ms = DEADLINE_MS) {
  const end = Date.now() + ms;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      /* not yet */
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

// What the stack starts from, made anew at each start: its own read models and broker keys
// (its projection prefix and broker namespace, stack_env.mjs) deleted from its Redis, and, unless
// SEKSENBIR_PG_DSN is given, a database of its own on the local PostgreSQL, dropped and made
// again (a failed run's is kept for a look until the next). In the shared `seksenbir` every
// earlier run's listed seasons stayed, and the read side kept those of a dropped database:
// past 20 open ones the lobby's first page (soonest close first) no longer held the season a
// run had just made. No database without a local server (`up` then embeds one).
const FRESH = `
import asyncio, os, sys
import asyncpg, redis
from shared.settings import Settings

async def remade(server, name):
    c = await asyncpg.connect(server + "/postgres")
    await c.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    await c.execute(f'CREATE DATABASE "{name}"')
    await c.close()

s = Settings.from_env(os.environ)
for url, prefix in ((s.broker_redis, s.broker_namespace), (s.read_redis, s.projection_prefix)):
    r = redis.Redis.from_url(url)
    for key in r.scan_iter(match=prefix + ":*", count=1000):
        r.delete(key)
    r.close()
if sys.argv[2]:
    asyncio.run(remade(sys.argv[1], sys.argv[2]))
`;

function freshStack(bin, port, env) {
  const server = 'postgresql://postgres@127.0.0.1:5432';
  const name = env.SEKSENBIR_PG_DSN ? '' : `seksenbir_e2e${port}`;
  const dsn = name ? `${server}/${name}` : env.SEKSENBIR_PG_DSN;
  try {
    execFileSync(join(dirname(bin), 'python'), ['-c', FRESH, server, name], { stdio: 'pipe', env: { ...env, SEKSENBIR_PG_DSN: dsn } });
  } catch (e) {
    if (name) return undefined; // no local server: `up` finds or embeds one, as before
    fail(`the stack's Redis keys could not be cleared: ${e.stderr ?? e.message}`);
  }
  return dsn;
}

/** `env`: more of the stack's environment (the live e2e's lagging read side: FAULT_POINT). */
export async function startStack(env = {}) {
  if (process.env.WEB_E2E_URL) {
    return {
      base: process.env.WEB_E2E_URL,
      ops: process.env.WEB_E2E_OPS_TOKEN ?? null,
      dsn: process.env.SEKSENBIR_PG_DSN,
      stop: async () => undefined,
    };
  }
  const ops = `e2e-ops-${randomBytes(16).toString('hex')}`; // this stack's own ops token
  const port = process.env.WEB_E2E_PORT ?? '18360';
  const bin = process.env.SEKSENBIR_BIN ?? join(here, '..', '..', '..', '.venv', 'bin', 'seksenbir');
  // the port must be free: a stack already there would answer for this one
  const taken = await fetch(`http://127.0.0.1:${port}/health`).then(() => true, () => false);
  if (taken) fail(`port ${port} is already serving: stop what runs there, or set WEB_E2E_PORT`);
  // its own projection prefix and broker namespace: another stack on the same Redis cannot
  // announce its projections to this one's pages (stack_env.mjs)
  // its own database and keys, made anew (SEKSENBIR_PG_DSN, when given, is used as it is)
  const dsn = freshStack(bin, port, stackEnv(process.env, port, env, ops));
  const own = dsn === undefined ? env : { SEKSENBIR_PG_DSN: dsn, ...env };
  const proc = spawn(bin, ['up', '--port', port], { stdio: ['ignore', 'pipe', 'pipe'], detached: true, env: stackEnv(process.env, port, own, ops) });
  // the stack's whole log kept beside the screenshots: what the server did when a run failed
  const log = createWriteStream(join(ARTEFACTS, `stack-${process.env.WEB_E2E_NAME ?? port}.log`));
  let out = '';
  proc.stdout.on('data', (d) => ((out += d), log.write(d)));
  proc.stderr.on('data', (d) => ((out += d), log.write(d)));
  proc.once('exit', () => log.end());
  const base = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (proc.exitCode !== null) return;
    const ended = new Promise((r) => proc.once('exit', r));
    try {
      process.kill(-proc.pid, 'SIGTERM'); // its process group: the API, workers, scheduler
    } catch {
      /* gone */
    }
    await Promise.race([ended, new Promise((r) => setTimeout(r, 20_000))]);
  };
  try {
    await waitFor('the stack', async () => {
      if (proc.exitCode !== null) throw Object.assign(new Error('exited'), { fatal: true });
      return (await fetch(`${base}/health`)).ok && (await fetch(`${base}/`)).ok;
    }, 90_000);
  } catch (e) {
    await stop();
    fail(`the stack did not start on ${base} (${e.message}):\n${out.slice(-3000)}`);
  }
  return { base, ops, dsn: dsn ?? 'postgresql://postgres@127.0.0.1:5432/seksenbir', stop };
}

export function launch() {
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}

/** The screen point of a province's label (inside it), after scrolling it into view. */
export async function provincePoint(page, plate) {
  await page.locator(`#p-${plate} path`).first().scrollIntoViewIfNeeded();
  return page.evaluate((plate) => {
    const label = document.querySelector(`#p-${plate} text`);
    const svg = label.ownerSVGElement;
    const p = svg.createSVGPoint();
    p.x = Number(label.getAttribute('x'));
    p.y = Number(label.getAttribute('y'));
    const s = p.matrixTransform(svg.getScreenCTM());
    return { x: s.x, y: s.y };
  }, plate);
}


/** The provinces whose label point, inside the map's box, is covered by something else (a
 * button over the map, a caption): a tap there would not pick the province. A province the view
 * leaves out of the box (zoomed in) is not counted. */
export async function coveredProvinces(page) {
  await page.locator('svg.map').first().scrollIntoViewIfNeeded();
  return page.evaluate(() => {
    const svg = document.querySelector('svg.map');
    const box = svg.getBoundingClientRect();
    const covered = [];
    for (const label of svg.querySelectorAll('g.prov text')) {
      const p = svg.createSVGPoint();
      p.x = Number(label.getAttribute('x'));
      p.y = Number(label.getAttribute('y'));
      const at = p.matrixTransform(svg.getScreenCTM());
      if (at.x < box.left || at.x > box.right || at.y < box.top || at.y > box.bottom) continue;
      if (at.y < 0 || at.y > window.innerHeight) continue;
      const hit = document.elementFromPoint(at.x, at.y);
      const g = label.closest('g.prov');
      if (!hit || hit.closest('g.prov') !== g) covered.push(`${g.dataset.plate} under ${hit ? hit.tagName.toLowerCase() : 'nothing'}`);
    }
    return covered;
  });
}

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's WCAG 2.1 A/AA rules on the page as it stands: the serious and critical
 * violations, one line each (empty when there are none). Evaluated through the DevTools
 * protocol, so the shell's CSP stays as it is. */
export async function axeCheck(page, screen) {
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    // eslint-disable-next-line no-undef
    const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${screen}: ${v.impact} ${v.id} at ${v.nodes.join(', ')}`);
}
