// Offer outcomes (R-6.1 … ): the `offer` and `offer_withdrawn` lines of the bey's own Divan
// reports (accepted through which Divan, rejected, lapsed, withdrawn), newest first, for the
// treaties card.
import type { Schemas } from '../api/client';
import { tIn, type Key, type Lang } from '../i18n';

type Own = Schemas['OwnReport'];

export function offerOutcomes(reports: readonly Own[] | undefined, most = 8): { divan: number; line: Schemas['ReportLine'] }[] {
  return [...(reports ?? [])]
    .sort((a, b) => b.divan - a.divan)
    .flatMap((r) => r.lines.filter((l) => l.kind === 'offer' || l.kind === 'offer_withdrawn').map((line) => ({ divan: r.divan, line })))
    .slice(0, most);
}

const ANSWERED: Record<string, Key> = { accepted: 'offerWasAccepted', rejected: 'offerWasRejected', withdrawn: 'offerWasWithdrawn' };

/** The stream's `offer_answered` (what became of an offer this bey made, before its Divan:
 * accepted or rejected by `to`, or withdrawn by the bey itself on any of its devices) in words
 * for the status line, the bey named by `nameOf`; null for anything else. */
export function offerAnsweredText(data: unknown, nameOf: (seat: number) => string, lang: Lang): string | null {
  const d = (data ?? {}) as { to?: unknown; divan?: unknown; answer?: unknown };
  const key = typeof d.answer === 'string' ? ANSWERED[d.answer] : undefined;
  if (!key || typeof d.to !== 'number') return null;
  return tIn(key, lang, { b: nameOf(d.to), n: typeof d.divan === 'number' ? d.divan : '' });
}
