// Prepares the map at build time (docs/web.md): the 81 provinces' outlines from
// data/provinces-map.json (Natural Earth, public domain) projected to SVG, quantised to whole
// units and written as relative path commands into src/generated/map.json, which the client
// bundles. Runs before every build, check and test (package.json); the output is git-ignored.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const source = JSON.parse(readFileSync(join(here, '..', 'data', 'provinces-map.json'), 'utf8'));

const SCALE = 100; // SVG units per degree of latitude: 0.01° ≈ 1 km, finer than the source
const LAT0 = 39; // equirectangular, true at Turkey's middle latitude
const KX = SCALE * Math.cos((LAT0 * Math.PI) / 180);

let minLon = Infinity, maxLon = -Infinity, minLat = Infinity, maxLat = -Infinity;
for (const p of source.provinces)
  for (const ring of p.polygons)
    for (const [lon, lat] of ring) {
      minLon = Math.min(minLon, lon); maxLon = Math.max(maxLon, lon);
      minLat = Math.min(minLat, lat); maxLat = Math.max(maxLat, lat);
    }
const PAD = 10;
const x = (lon) => Math.round((lon - minLon) * KX) + PAD;
const y = (lat) => Math.round((maxLat - lat) * SCALE) + PAD;

function ringPath(ring) {
  let out = '';
  let px = 0, py = 0;
  const pts = ring.slice(0, -1); // closed rings repeat their first point; `z` closes them
  pts.forEach(([lon, lat], i) => {
    const qx = x(lon), qy = y(lat);
    if (i === 0) out += `M${qx} ${qy}`;
    else if (qx !== px || qy !== py) out += `l${qx - px} ${qy - py}`;
    px = qx; py = qy;
  });
  return out + 'z';
}

const provinces = source.provinces
  .map((p) => ({
    plate: p.plate,
    name: p.name,
    d: p.polygons.map(ringPath).join(''),
    label: [x(p.label[0]), y(p.label[1])],
  }))
  .sort((a, b) => a.plate - b.plate);

if (provinces.length !== 81) throw new Error(`expected 81 provinces, got ${provinces.length}`);

const map = {
  credit: 'Made with Natural Earth (public domain).',
  width: x(maxLon) + PAD,
  height: y(minLat) + PAD,
  provinces,
};
const out = join(here, '..', 'src', 'generated', 'map.json');
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify(map));
console.log(`map: ${provinces.length} provinces, ${JSON.stringify(map).length} bytes -> ${out}`);
