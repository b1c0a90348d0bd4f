// The offline notice: a banner above every screen while the game's server cannot be reached —
// the browser says it has no network, or a call to /v1 found no answer (api/client.ts tells
// `reachable`). The shell and its assets still open (the service worker, pwa/sw.js), but game
// data is never cached, so the player is told plainly why the map and reports do not load and
// that they come back by themselves. While it shows, /health is asked now and then (backing
// off, at most once a minute) so it goes away when the server answers again. It sits outside
// #app, so a screen change does not remove it.
import { onLang } from '../i18n';
import { h } from '../ui/dom';
import { tx } from './texts';

const FIRST_PROBE_MS = 2_000;
const MAX_PROBE_MS = 60_000;

let answered = true;
let render: () => void = () => undefined;
let probe: ReturnType<typeof setTimeout> | null = null;
let probeMs = FIRST_PROBE_MS;

/** Whether the last call to the server got an answer (api/client.ts's `reachable` hook). */
export function reachable(ok: boolean): void {
  if (ok === answered) return;
  answered = ok;
  if (ok) probeMs = FIRST_PROBE_MS;
  render();
}

function scheduleProbe(): void {
  if (probe !== null) return;
  probe = setTimeout(() => {
    probe = null;
    fetch('/health', { cache: 'no-store' }).then(
      () => reachable(true),
      () => {
        probeMs = Math.min(probeMs * 2, MAX_PROBE_MS);
        render();
      },
    );
  }, probeMs);
}

export function watchNetwork(): void {
  const banner = h('div', { id: 'offline', class: 'offline', role: 'status', 'aria-live': 'polite' });
  document.body.prepend(banner);
  render = (): void => {
    const offline = !navigator.onLine || !answered;
    banner.hidden = !offline;
    banner.textContent = offline ? tx('offline') : '';
    if (offline) scheduleProbe();
  };
  window.addEventListener('offline', render);
  window.addEventListener('online', () => {
    probeMs = FIRST_PROBE_MS;
    render();
  });
  onLang(() => render());
  render();
}
