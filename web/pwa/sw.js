// The service worker (docs/web.md, "Installable app"), built by pwa/plugin.mjs into dist/sw.js
// with the build's file list and version filled in, served by the gateway at /sw.js
// (Cache-Control: no-cache, scope /).
//
// - The shell and the hashed assets are cached at install, so the app opens offline.
// - Navigations go to the network first (the shell is revalidated as the server says) and fall
//   back to the cached shell when there is no network.
// - Hashed assets never change: cache first.
// - Game data (/v1/…, /health, /ready, /metrics, the API docs) is never touched here: the
//   browser fetches it from the network as if there were no worker, so nothing of a season —
//   and no token — is ever written to a cache.
const VERSION = self.__SEKSENBIR_VERSION__;
const PRECACHE = self.__SEKSENBIR_PRECACHE__;
const CACHE = `seksenbir-shell-${VERSION}`;

function isGameData(url) {
  return !(url.pathname === '/' || url.pathname.startsWith('/assets/') || PRECACHE.includes(url.pathname));
}

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(PRECACHE.map((p) => new Request(p, { cache: 'reload' }))))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith('seksenbir-') && k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === 'navigate' && url.pathname === '/') {
    event.respondWith(
      fetch(request).then(
        (answer) => {
          if (answer.ok) {
            const copy = answer.clone();
            void caches.open(CACHE).then((cache) => cache.put('/', copy));
          }
          return answer;
        },
        () => caches.match('/').then((cached) => cached ?? Response.error()),
      ),
    );
    return;
  }
  if (isGameData(url)) return; // the network, untouched, never cached
  event.respondWith(caches.match(request).then((cached) => cached ?? fetch(request)));
});


// Web Push (issue 25): show what the server pushed (its text, in the subscription's language;
// never another bey's secrets), one notification per delivery id (a repeat replaces it), and
// open or focus the season's screen when the player taps it.
function shown(payload) {
  const season = typeof payload.season_id === 'string' ? payload.season_id : '';
  return {
    title: typeof payload.title === 'string' ? payload.title : 'Seksenbir',
    options: {
      body: typeof payload.body === 'string' ? payload.body : '',
      tag: typeof payload.delivery === 'string' ? payload.delivery : undefined,
      data: { url: season ? `/#/s/${encodeURIComponent(season)}` : '/', event: payload.event },
    },
  };
}

self.addEventListener('push', (event) => {
  let payload = {};
  try {
    payload = event.data ? event.data.json() : {};
  } catch {
    payload = { body: event.data ? event.data.text() : '' };
  }
  const { title, options } = shown(payload);
  event.waitUntil(self.registration.showNotification(title, options));
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const url = new URL(event.notification.data?.url ?? '/', self.location.origin).href;
  event.waitUntil(
    self.clients.matchAll({ type: 'window', includeUncontrolled: true }).then((windows) => {
      const open = windows.find((w) => new URL(w.url).origin === self.location.origin);
      if (open) return open.navigate(url).then((w) => (w ?? open).focus());
      return self.clients.openWindow(url);
    }),
  );
});
