// A battle in full, as lines for people: each group with its beys, advances and
// supports, the defence with its bonuses and supports, both dice and the totals, the losses,
// the units entering and the taker. The record comes from GET /battles/{divan}.
import type { Battle } from '../api/client';
import { t } from '../i18n';

type Move = readonly [number, number, number]; // (seat, origin, units)
type BeyName = (seat: number) => string;
const seatName: BeyName = (n) => t('bey', { n });

function moves(list: readonly Move[], nameOf: (p: number) => string, beyName: BeyName): string {
  return list.map(([seat, origin, units]) => t('battleMove', { b: beyName(seat), p: nameOf(origin), u: units })).join('; ');
}

/** The battle's lines after its headline: groups, defence, dice and totals, result. */
/** `beyName` names a seat (the bey's chosen name; "Bey 3" without one). */
export function battleDetail(b: Battle, nameOf: (p: number) => string, beyName: BeyName = seatName): string[] {
  const out: string[] = [];
  b.groups.forEach((g, i) => {
    const who = g.beys.map((n) => beyName(n)).join(', ');
    const fought = b.fighting_group === i ? ` ${t('battleFought')}` : '';
    const traitor = g.traitor ? ` (${t('hain')})` : '';
    let line = `${t('battleGroup', { b: who, s: g.strength })}${traitor}${fought}`;
    if (g.advances.length) line += ` — ${t('battleAdvances')}: ${moves(g.advances, nameOf, beyName)}`;
    if (g.support.length) line += ` — ${t('battleSupport')}: ${moves(g.support, nameOf, beyName)}`;
    out.push(line);
  });
  let defence = t('battleDefence', { u: b.defender_units, bonus: b.defence_bonus });
  if (b.defence_support.length) defence += ` — ${t('battleSupport')}: ${moves(b.defence_support, nameOf, beyName)}`;
  out.push(defence);
  if (b.attack !== null && b.attack !== undefined && b.defence !== null && b.defence !== undefined) {
    out.push(
      t('battleDice', {
        ad: b.attack_die ?? '–',
        dd: b.defence_die ?? '–',
        a: b.attack,
        d: b.defence,
      }),
    );
  }
  const result: string[] = [t('battleLosses', { a: b.attacker_losses ?? 0, d: b.defender_losses ?? 0 })];
  if (b.outcome === 'taken' && b.taker !== null && b.taker !== undefined) {
    result.push(t('battleTaken', { b: beyName(b.taker), u: b.entering ?? 0 }));
  }
  for (const [seat, units] of b.shares ?? []) result.push(t('battleShare', { b: beyName(seat), u: units }));
  out.push(result.join('; '));
  return out;
}
