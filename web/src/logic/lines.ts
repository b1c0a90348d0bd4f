// A report line with the names of the beys it names (docs/web.md "Names"): the server's lines
// refer to seats ("3. bey" / "Bey 3"); the names are the read side's, drawn apart as text.
// Each bey is named once: a seat standing alone in parentheses (the news line's "(3. bey)",
// "(Bey 3)") takes its name inside them, "(3. bey: Ayşe)"; the seats named in the running
// text have theirs listed after the line. (Listed after, the news line once read
// "Haber: Seyyah tüccar (3. bey) (3. bey: Ayşe)".) The missions a line names by id ("2. bey
// görevini tamamladı: M-6") are named after it too, each once, in order.

export interface LinePart {
  text: string;
  name: boolean; // a bey's chosen name (drawn in its own element)
}

const SEAT = /(\d+)\. bey|Bey (\d+)/g;
const ALONE = /\((?:(\d+)\. bey|Bey (\d+))\)/g;

const MISSION = /\bM-\d+\b/g;

/** `text` in parts, with the name of every seat it names that has one beside it, once, and
 * of every mission it names by id (`missionOf`) after those. */
export function namedLine(
  text: string,
  nameOf: (seat: number) => string | null,
  seatForm: (seat: number) => string,
  missionOf: (id: string) => string | null = () => null,
): LinePart[] {
  const parts: LinePart[] = [];
  const inline = new Set<number>();
  let from = 0;
  for (const m of text.matchAll(ALONE)) {
    const seat = Number(m[1] ?? m[2]);
    const name = nameOf(seat);
    if (name === null) continue;
    const close = (m.index ?? 0) + m[0].length - 1; // before its ")"
    parts.push({ text: text.slice(from, close), name: false }, { text: `: ${name}`, name: true });
    from = close;
    inline.add(seat);
  }
  parts.push({ text: text.slice(from), name: false });
  const seats = new Set<number>();
  for (const m of text.matchAll(SEAT)) seats.add(Number(m[1] ?? m[2]));
  const rest = [...seats].sort((a, b) => a - b).filter((n) => !inline.has(n) && nameOf(n) !== null);
  const missions = [...new Set([...text.matchAll(MISSION)].map((m) => m[0]))];
  const named = missions.map((id) => [id, missionOf(id)] as const).filter(([, name]) => name !== null);
  const names = [
    ...rest.map((n) => `${seatForm(n)}: ${nameOf(n) ?? ''}`),
    ...named.map(([id, name]) => `${id}: ${name ?? ''}`),
  ].join(' · ');
  if (names) parts.push({ text: ` (${names})`, name: true });
  return parts.filter((p) => p.text !== '');
}
