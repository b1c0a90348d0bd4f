// The token's QR code as one SVG path (qrcode-generator encodes; this draws): a module is a
// 1×1 square, runs of dark modules on a row are one rectangle, and a quiet zone of 4 modules
// (the standard's minimum) surrounds it. Error correction M: a phone reads it off a screen.
import qrcode from 'qrcode-generator';

export const QUIET = 4;

export interface QrPath {
  /** modules across, quiet zone included */
  size: number;
  /** modules across the code itself (21 + 4 × (version − 1)) */
  modules: number;
  /** the dark modules as SVG path commands */
  d: string;
  dark: (row: number, col: number) => boolean;
}

export function qrPath(text: string): QrPath {
  const qr = qrcode(0, 'M');
  qr.addData(text, 'Byte');
  qr.make();
  const n = qr.getModuleCount();
  const parts: string[] = [];
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < n; ) {
      if (!qr.isDark(r, c)) {
        c++;
        continue;
      }
      let run = 1;
      while (c + run < n && qr.isDark(r, c + run)) run++;
      parts.push(`M${c + QUIET} ${r + QUIET}h${run}v1h-${run}z`);
      c += run;
    }
  }
  return { size: n + 2 * QUIET, modules: n, d: parts.join(''), dark: (r, c) => qr.isDark(r, c) };
}
