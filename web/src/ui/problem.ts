// A refusal as the player reads it (logic/problems.ts: words per code, never a JSON path), or
// the server unreached: every form of the player's client says its refusals through this.
import { ApiProblem } from '../api/client';
import { lang, t } from '../i18n';
import { problemMessage } from '../logic/problems';

export function problemText(e: unknown): string {
  if (e instanceof ApiProblem) return problemMessage(e, lang());
  return t('offline');
}
