// The app's icons, drawn here from a few shapes (no image files, nothing downloaded): a white
// crescent and star on the game's red. `svgIcon()` is the vector icon; `pngIcon(size, maskable)`
// rasterises the same shapes (4×4 supersampled) into a PNG with node:zlib. A maskable icon keeps
// its drawing inside the central 80 % circle (the safe zone), its background to the edges.
import { deflateSync } from 'node:zlib';

export const RED = [0x8c, 0x1c, 0x13];
const WHITE = [0xff, 0xff, 0xff];

// in a unit square, for the plain icon; a maskable one scales them about the centre
const OUTER = { x: 0.43, y: 0.5, r: 0.27 };
const INNER = { x: 0.5, y: 0.5, r: 0.215 };
const STAR = { x: 0.69, y: 0.5, r: 0.105 };

function starPoints(scale) {
  const pts = [];
  for (let i = 0; i < 10; i++) {
    const a = Math.PI + (i * Math.PI) / 5; // the first point faces the crescent, as on the flag
    const r = (i % 2 === 0 ? STAR.r : STAR.r * 0.4) * scale;
    pts.push([0.5 + (STAR.x - 0.5) * scale + r * Math.cos(a), 0.5 + r * Math.sin(a)]);
  }
  return pts;
}

function inPolygon(x, y, pts) {
  let inside = false;
  for (let i = 0, j = pts.length - 1; i < pts.length; j = i++) {
    const [xi, yi] = pts[i];
    const [xj, yj] = pts[j];
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

function shape(scale) {
  const c = (d) => ({ x: 0.5 + (d.x - 0.5) * scale, y: 0.5, r: d.r * scale });
  const outer = c(OUTER);
  const inner = c(INNER);
  const star = starPoints(scale);
  const box = { x0: Math.min(...star.map((p) => p[0])), x1: Math.max(...star.map((p) => p[0])), y0: Math.min(...star.map((p) => p[1])), y1: Math.max(...star.map((p) => p[1])) };
  const inDisk = (x, y, d) => (x - d.x) ** 2 + (y - d.y) ** 2 <= d.r ** 2;
  const inStar = (x, y) => x >= box.x0 && x <= box.x1 && y >= box.y0 && y <= box.y1 && inPolygon(x, y, star);
  return (x, y) => (inDisk(x, y, outer) && !inDisk(x, y, inner)) || inStar(x, y);
}

export function svgIcon(maskable = false) {
  const scale = maskable ? 0.72 : 1;
  const k = 512;
  const c = (d) => ({ x: (0.5 + (d.x - 0.5) * scale) * k, y: 0.5 * k, r: d.r * scale * k });
  const o = c(OUTER);
  const i = c(INNER);
  const star = starPoints(scale).map(([x, y]) => `${(x * k).toFixed(1)},${(y * k).toFixed(1)}`).join(' ');
  const f = (n) => n.toFixed(1);
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${k} ${k}">` +
    `<rect width="${k}" height="${k}" fill="#8c1c13"/>` +
    `<mask id="m"><rect width="${k}" height="${k}" fill="#fff"/><circle cx="${f(i.x)}" cy="${f(i.y)}" r="${f(i.r)}" fill="#000"/></mask>` +
    `<circle cx="${f(o.x)}" cy="${f(o.y)}" r="${f(o.r)}" fill="#fff" mask="url(#m)"/>` +
    `<polygon points="${star}" fill="#fff"/></svg>`
  );
}

const CRC = new Uint32Array(256).map((_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

export function pngIcon(size, maskable = false) {
  const inside = shape(maskable ? 0.72 : 1);
  const SS = 4;
  const raw = Buffer.alloc(size * (size * 3 + 1));
  for (let y = 0; y < size; y++) {
    const row = y * (size * 3 + 1);
    raw[row] = 0; // filter: none
    for (let x = 0; x < size; x++) {
      let hits = 0;
      for (let sy = 0; sy < SS; sy++)
        for (let sx = 0; sx < SS; sx++) if (inside((x + (sx + 0.5) / SS) / size, (y + (sy + 0.5) / SS) / size)) hits++;
      const a = hits / (SS * SS);
      for (let ch = 0; ch < 3; ch++) raw[row + 1 + x * 3 + ch] = Math.round(RED[ch] * (1 - a) + WHITE[ch] * a);
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // truecolour RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
