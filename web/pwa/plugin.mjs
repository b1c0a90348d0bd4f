// Vite plugin: the installable app (docs/web.md, "Installable app"). At build time it
// - draws the icons (pwa/icons.mjs) into hashed assets: SVG, PNG 192 and 512, maskable 512;
// - writes dist/manifest.webmanifest (Turkish by default; index.html links it) and adds the
//   apple-touch-icon to index.html;
// - writes dist/sw.js from pwa/sw.js, with the list of files to precache (the shell, every
//   asset of this build, the manifest) and a version that changes whenever one of them does.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pngIcon, svgIcon } from './icons.mjs';

const here = dirname(fileURLToPath(import.meta.url));
export const THEME = '#8c1c13';
export const BACKGROUND = '#f6f4f0';

export function manifest(icons) {
  return {
    id: '/',
    name: 'Seksenbir',
    short_name: 'Seksenbir',
    description: '81 il, 19 bey, bir Han: tarayıcıda oynanan strateji oyunu.',
    lang: 'tr',
    dir: 'ltr',
    start_url: '/',
    scope: '/',
    display: 'standalone',
    orientation: 'any',
    background_color: BACKGROUND,
    theme_color: THEME,
    categories: ['games'],
    icons: [
      { src: icons.svg, sizes: 'any', type: 'image/svg+xml', purpose: 'any' },
      { src: icons.png192, sizes: '192x192', type: 'image/png', purpose: 'any' },
      { src: icons.png512, sizes: '512x512', type: 'image/png', purpose: 'any' },
      { src: icons.maskable512, sizes: '512x512', type: 'image/png', purpose: 'maskable' },
    ],
  };
}

export function pwa() {
  const refs = {};
  return {
    name: 'seksenbir-pwa',
    apply: 'build',
    enforce: 'post',
    buildStart() {
      const emit = (name, source) => this.emitFile({ type: 'asset', name, source });
      refs.svg = emit('icon.svg', svgIcon());
      refs.png192 = emit('icon-192.png', pngIcon(192));
      refs.png512 = emit('icon-512.png', pngIcon(512));
      refs.maskable512 = emit('icon-maskable-512.png', pngIcon(512, true));
    },
    transformIndexHtml() {
      // index.html links the manifest and names the theme colour; the touch icon is drawn here
      return [{ tag: 'link', attrs: { rel: 'apple-touch-icon', href: '/__SEKSENBIR_TOUCH_ICON__' }, injectTo: 'head' }];
    },
    generateBundle(_, bundle) {
      const icons = Object.fromEntries(Object.entries(refs).map(([k, ref]) => [k, `/${this.getFileName(ref)}`]));
      const html = bundle['index.html'];
      if (!html || html.type !== 'asset') throw new Error('pwa: no index.html in the bundle');
      html.source = String(html.source).replace('/__SEKSENBIR_TOUCH_ICON__', icons.png192);
      this.emitFile({ type: 'asset', fileName: 'manifest.webmanifest', source: `${JSON.stringify(manifest(icons), null, 2)}\n` });
      const files = [...new Set([...Object.keys(bundle).filter((f) => f !== 'sw.js'), 'favicon.svg', 'manifest.webmanifest'])].sort();
      const digest = createHash('sha256');
      for (const f of files) {
        const item = bundle[f]; // favicon.svg is copied from public/, the manifest written above
        digest.update(f).update(item ? (item.type === 'chunk' ? item.code : item.source) : '');
      }
      const precache = files.map((f) => (f === 'index.html' ? '/' : `/${f}`));
      const version = digest.digest('hex').slice(0, 16);
      const template = readFileSync(join(here, 'sw.js'), 'utf8');
      const code =
        `self.__SEKSENBIR_VERSION__ = ${JSON.stringify(version)};\n` +
        `self.__SEKSENBIR_PRECACHE__ = ${JSON.stringify(precache)};\n` +
        template;
      this.emitFile({ type: 'asset', fileName: 'sw.js', source: code });
    },
  };
}
