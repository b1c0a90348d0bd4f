// The app: a header (home, language switch), then the screen the address names:
// `#/` home, `#/s/<season_id>` a season, `#/p/<player_id>` a player's record, `#/console` the
// ops and auditor console, `#/k/<key>` a key brought from another device (its QR code).
import './style.css';
import { configure } from './api/client';
import { lang, onLang, setLang, t } from './i18n';
import { h } from './ui/dom';
import { homeScreen } from './ui/home';
import { playerScreen } from './ui/player';
import { keyRoute } from './ui/keys';
import { clearNotice, notice, noticeBox } from './ui/notice';
import { reachable, watchNetwork } from './pwa/offline';
import { registerWorker } from './pwa/register';
import { rememberOpened, startHash } from './logic/storage';

const app = document.getElementById('app') as HTMLElement;
const stored = localStorage.getItem('seksenbir.lang');
if (stored === 'en' || stored === 'tr') setLang(stored);
else document.documentElement.lang = 'tr';

// A 429's wait is said while it lasts: its notice goes once the one more try has its answer
// (it stayed on screen after the try succeeded).
let waitNotice = '';
configure({
  lang,
  waiting: (n) => notice((waitNotice = t('wait429', { n })), 'info', 'wait'),
  resending: (n) => notice((waitNotice = t('resend', { n })), 'info', 'wait'),
  waited: () => clearNotice('wait', waitNotice),
  reachable,
});

let leave: (() => void) | null = null;

function header(): HTMLElement {
  return h(
    'header',
    { class: 'top' },
    h('a', { href: '#/', class: 'brand' }, t('app')),
    h(
      'button',
      {
        type: 'button',
        class: 'lang',
        lang: lang() === 'tr' ? 'en' : 'tr',
        'aria-label': t('switchLangLabel'),
        onclick: () => {
          const next = lang() === 'tr' ? 'en' : 'tr';
          localStorage.setItem('seksenbir.lang', next);
          setLang(next);
        },
      },
      t('switchLang'),
    ),
  );
}

/** A screen in a chunk of its own, loaded when its route is opened: the ops and auditor
 * console (ui/console.ts) and the season screen (ui/season.ts, with its chat, notifications
 * and admin cards) — home's first load carries neither (docs/web.md, docs/benchmarks.md). */
function lazyRoute<M>(load: () => Promise<M>, open: (m: M) => () => void): () => void {
  let gone = false;
  let stop: (() => void) | null = null;
  void load().then((m) => {
    if (!gone) stop = open(m);
  });
  return () => {
    gone = true;
    stop?.();
  };
}

function route(): void {
  leave?.();
  leave = null;
  const main = h('main', { id: 'main' });
  app.replaceChildren(header(), noticeBox(), main);
  const m = /^#\/s\/([A-Za-z0-9_-]{1,64})$/.exec(location.hash);
  const p = /^#\/p\/([0-9a-f]{32})$/.exec(location.hash); // a player's record (issue 23)
  if (m?.[1]) rememberOpened(localStorage, m[1]); // reopening the app returns here (issue 22)
  const season = m?.[1];
  if (season) leave = lazyRoute(() => import('./ui/season'), (s) => s.seasonScreen(main, season));
  else if (p?.[1]) leave = playerScreen(main, p[1]);
  else if (location.hash === '#/console') leave = lazyRoute(() => import('./ui/console'), (c) => c.consoleScreen(main));
  else if (location.hash.startsWith('#/k/')) leave = keyRoute(main); // a key's QR code, scanned
  else leave = homeScreen(main);
}

window.addEventListener('hashchange', route);
onLang(route);
// The app started (or reopened) at home goes back to the season last opened (issue 22); once a
// tab has routed, home is home (the header's link, a reload there).
const STARTED = 'seksenbir.started';
let started = false;
try {
  started = sessionStorage.getItem(STARTED) === '1';
  sessionStorage.setItem(STARTED, '1');
} catch {
  started = true; // no session storage: never redirect
}
const back = startHash(location.hash, started, localStorage);
if (back) history.replaceState(null, '', back);
route();
watchNetwork(); // the offline notice (pwa/offline.ts)
registerWorker(); // the installable app: the shell offline (pwa/sw.js)
