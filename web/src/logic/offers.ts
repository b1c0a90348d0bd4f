// Offer outcomes (R-6.1 … ): the `offer` and `offer_withdrawn` lines of the bey's own Divan
// reports (accepted through which Divan, rejected, lapsed, withdrawn), newest first, for the
// treaties card.
import type { Schemas } from '../api/client';

type Own = Schemas['OwnReport'];

export function offerOutcomes(reports: readonly Own[] | undefined, most = 8): { divan: number; line: Schemas['ReportLine'] }[] {
  return [...(reports ?? [])]
    .sort((a, b) => b.divan - a.divan)
    .flatMap((r) => r.lines.filter((l) => l.kind === 'offer' || l.kind === 'offer_withdrawn').map((line) => ({ divan: r.divan, line })))
    .slice(0, most);
}
