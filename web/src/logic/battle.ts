// A battle in full, as lines for people: each group with its beys, advances and
// supports, the defence with its bonuses and supports, both dice and the totals, the losses,
// the units entering and the taker. The record comes from GET /battles/{divan}.
import type { Battle } from '../api/client';
import { t } from '../i18n';

type Move = readonly [number, number, number]; // (seat, origin, units)

function moves(list: readonly Move[], nameOf: (p: number) => string): string {
  return list.map(([seat, origin, units]) => t('battleMove', { b: t('bey', { n: seat }), p: nameOf(origin), u: units })).join('; ');
}

/** The battle's lines after its headline: groups, defence, dice and totals, result. */
export function battleDetail(b: Battle, nameOf: (p: number) => string): string[] {
  const out: string[] = [];
  b.groups.forEach((g, i) => {
    const who = g.beys.map((n) => t('bey', { n })).join(', ');
    const fought = b.fighting_group === i ? ` ${t('battleFought')}` : '';
    const traitor = g.traitor ? ` (${t('hain')})` : '';
    let line = `${t('battleGroup', { b: who, s: g.strength })}${traitor}${fought}`;
    if (g.advances.length) line += ` — ${t('battleAdvances')}: ${moves(g.advances, nameOf)}`;
    if (g.support.length) line += ` — ${t('battleSupport')}: ${moves(g.support, nameOf)}`;
    out.push(line);
  });
  let defence = t('battleDefence', { u: b.defender_units, bonus: b.defence_bonus });
  if (b.defence_support.length) defence += ` — ${t('battleSupport')}: ${moves(b.defence_support, nameOf)}`;
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
    result.push(t('battleTaken', { b: t('bey', { n: b.taker }), u: b.entering ?? 0 }));
  }
  for (const [seat, units] of b.shares ?? []) result.push(t('battleShare', { b: t('bey', { n: seat }), u: units }));
  out.push(result.join('; '));
  return out;
}
