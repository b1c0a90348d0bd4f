// The service worker (docs/web.md, PWA): the shell works offline, game data is always fresh.
// - the shell (/) is fetched from the network first, the cached copy only when offline;
// - hashed assets (/assets/*) never change: served from the cache once fetched;
// - the API (/v1/…) and everything else is never cached here.
const CACHE = 'seksenbir-shell-v1';

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.add('/')).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== 'GET' || url.origin !== self.location.origin) return;
  if (url.pathname === '/' || url.pathname === '/index.html') {
    event.respondWith(
      fetch(event.request)
        .then((answer) => {
          if (answer.ok) {
            const copy = answer.clone();
            void caches.open(CACHE).then((cache) => cache.put('/', copy));
          }
          return answer;
        })
        .catch(() => caches.match('/').then((hit) => hit ?? Response.error())),
    );
    return;
  }
  if (url.pathname.startsWith('/assets/')) {
    event.respondWith(
      caches.match(event.request).then(
        (hit) =>
          hit ??
          fetch(event.request).then((answer) => {
            if (answer.ok) {
              const copy = answer.clone();
              void caches.open(CACHE).then((cache) => cache.put(event.request, copy));
            }
            return answer;
          }),
      ),
    );
  }
});
