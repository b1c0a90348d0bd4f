// Vite builds the client into dist/: index.html and hashed assets under assets/ (served by the
// gateway, entrypoints/web.py). No inline script or style is emitted (the shell's CSP forbids
// them): the module preload polyfill is off and CSS goes into its own file.
import { defineConfig } from 'vite';
import { pwa } from './pwa/plugin.mjs';

export default defineConfig({
  base: '/',
  plugins: [pwa()], // the installable app: icons, manifest, service worker (pwa/plugin.mjs)
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    cssCodeSplit: false,
    sourcemap: false,
  },
  server: {
    // `npm run dev`: the API of a `make run` on 8081, same origin through Vite's proxy
    proxy: { '/v1': 'http://127.0.0.1:8081' },
  },
  test: {
    include: ['tests/unit/**/*.test.ts'],
    environment: 'node',
  },
});
