// The bey's own seal line (`orders_sealed` in its private report, report version 3 or later,
// ADR-57) said in words for players: what the seal means for them. The salt and the digest stay
// available for those who verify, apart (the season screen puts them in a details element);
// the line's own text carries both as hex, which says nothing to a player.
import { tIn, type Lang } from '../i18n';

export interface Seal {
  words: string; // for every player
  salt: string; // 64 hex, this bey's alone (no other bey ever sees it)
  digest: string; // 64 hex, the one the public report lists for the bey's seat
}

/** A private `orders_sealed` line in words, its salt and digest apart; null for any other. */
export function sealWords(line: { kind: string; data: Record<string, unknown> }, lang: Lang): Seal | null {
  if (line.kind !== 'orders_sealed') return null;
  const { divan, salt, digest } = line.data;
  if (typeof salt !== 'string' || typeof digest !== 'string') return null;
  return { words: tIn('sealWords', lang, { n: typeof divan === 'number' ? divan : '' }), salt, digest };
}
