// The server's words the client says (ADR-170): `api/words.json`, generated from the one
// catalogue (shared.domain.messages) by `make web-words`, never a second copy kept by hand
// (tests/web/test_catalogue_words.py fails when it is stale). A battle's outcome is said as the
// Divan report says it ("düştü / direndi / kimse alamadı", ADR-157: one word for one event);
// why an order did nothing as `seksenbir explain` says it.
import words from '../api/words.json';
import type { Lang } from '../i18n';

type Said = { readonly tr: string; readonly en: string };
const OUTCOME: Readonly<Record<string, Said>> = words.outcome;
const WHY: Readonly<Record<string, Said>> = words.why;

const pick = (table: Readonly<Record<string, Said>>, code: string, l: Lang): string | null => {
  const said = Object.hasOwn(table, code) ? table[code] : undefined;
  return said ? said[l] : null;
};

/** A battle's outcome (`taken`, `held`, `standoff`) in the report's words; null for another. */
export function outcomeWord(outcome: string, l: Lang): string | null {
  return pick(OUTCOME, outcome, l);
}

/** Why an order did nothing, or a support counted or not (`not_owned`, `ally` …), in the
 * catalogue's words; null for a reason it does not hold. */
export function whyWord(reason: string, l: Lang): string | null {
  return pick(WHY, reason, l);
}
