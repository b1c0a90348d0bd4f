/// <reference types="vite/client" />
// Registers the service worker (pwa/sw.js, built into dist/sw.js; served at /sw.js with scope
// /). Only a built app has one: the Vite dev server serves sources, not the worker.
export function registerWorker(): void {
  if (!import.meta.env.PROD || !('serviceWorker' in navigator)) return;
  window.addEventListener('load', () => {
    navigator.serviceWorker.register('/sw.js', { scope: '/' }).catch(() => {
      /* no worker (a private window, an insecure origin): the app works, only not offline */
    });
  });
}
