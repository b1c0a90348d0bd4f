// Owner colours: Paul Tol's colour-blind-safe "muted" and "light" schemes (10 + 9 = 19 hues,
// one per seat), always with a second cue that needs no colour: the seat number written in the
// province, and a thick outline round the player's own (docs/web.md, The map).
const HUES = [
  '#CC6677', '#332288', '#DDCC77', '#117733', '#88CCEE', '#882255', '#44AA99', '#999933',
  '#AA4499', '#77AADD', '#EE8866', '#EEDD88', '#FFAABB', '#99DDFF', '#44BB99', '#BBCC33',
  '#AAAA00', '#DDDDDD', '#E69F00',
];

export const UNOWNED = '#F2EFE9';

export function ownerColour(seat: number | null): string {
  if (seat === null || seat < 1) return UNOWNED;
  return HUES[(seat - 1) % HUES.length] ?? UNOWNED;
}

/** Black or white text on `hex`, whichever contrasts more (WCAG relative luminance). */
export function textOn(hex: string): '#000000' | '#FFFFFF' {
  const c = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255);
  const lin = c.map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
  const l = 0.2126 * (lin[0] ?? 0) + 0.7152 * (lin[1] ?? 0) + 0.0722 * (lin[2] ?? 0);
  return (l + 0.05) / 0.05 >= 1.05 / (l + 0.05) ? '#000000' : '#FFFFFF';
}
