// The season admin's acts in the client (docs/web.md "Season admin"): which of
// `POST /v1/seasons/{id}/admin/{act}` the creator of a live season is offered, from the status
// the season screen already reads, and each act's body. The server decides (a refusal names
// why); this only keeps buttons that cannot succeed off the screen.
import type { Status } from '../api/client';

export type AdminAct = 'postpone' | 'cancel' | 'pause' | 'resume';

/** The acts a season in this status can take: postpone while registration is open; cancel
 *  before Divan 1 (registration, or running before any Divan); pause while running; resume
 *  while paused. None once cancelled, at the Kurultay or over. */
export function adminActs(status: Pick<Status, 'phase' | 'divan' | 'paused' | 'cancelled' | 'mode'> | null): AdminAct[] {
  if (!status || status.mode !== 'live' || status.cancelled) return [];
  if (status.phase === 'registration') return ['postpone', 'cancel'];
  if (status.phase !== 'running') return [];
  if (status.paused) return ['resume'];
  return status.divan === 0 ? ['pause', 'cancel'] : ['pause'];
}

/** An act's body: every act has its reason (1 … 500 characters, one line: the server's free-text
 *  check judges it); a postponement also the new close, the device's time sent as an instant.
 *  Null when the form cannot make a body (no reason, no valid close). */
export function adminBody(act: AdminAct, reason: string, closesLocal = ''): { reason: string; registration_closes_at?: string } | null {
  const why = reason.trim();
  if (!why) return null;
  if (act !== 'postpone') return { reason: why };
  const at = new Date(closesLocal);
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(closesLocal) || Number.isNaN(at.getTime())) return null;
  return { reason: why, registration_closes_at: at.toISOString() };
}
