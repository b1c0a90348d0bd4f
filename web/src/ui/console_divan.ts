// One Divan in the ops console (issue 26): explained on the map (every battle drawn — advances
// red, counted supports green, the rest grey dashed — with each support's why in words, the bonuses,
// the dice and their keys, the rules, the outcome; the orders as submitted and when against
// the lock), a what-if (orders changed, added or removed, dice pinned; its difference drawn
// on the map, nothing written), a fork, a correction after its dry run, verify, the export.
import { ApiProblem } from '../api/client';
import { consoleApi, exportBlob, type BattleNote, type CorrectionIn, type Explain, type WhatIfIn } from '../api/console';
import { h, clear, type Child } from './dom';
import { ProvinceMap, type Arrow } from './map';
import { apiWord, ct, whySaid } from './console_text';
import { downloadLink, failure, field, instant, table } from './console_parts';

export interface DivanCtx {
  token: string;
  season: string;
  divan: number;
  map: ProvinceMap;
}

const names = ProvinceMap.names();
const pname = (p: number | null | undefined) => (p === null || p === undefined ? '–' : `${names.get(p) ?? p} (${p})`);
// a battle's outcome in the words of the reports and the player's screens (the catalogue's,
// logic/words.ts), never its code; – for none
const said = (o: string | null | undefined) => (o ? apiWord(o) : '–');

/** The lines a battle draws: each advance (a betrayal apart) and each support into it. */
export function battleArrows(b: BattleNote): Arrow[] {
  const out: Arrow[] = [];
  for (const g of b.groups)
    for (const a of g.advances)
      out.push({ from: a.origin, to: b.target, kind: a.betrayal ? 'betrayal' : 'advance', seat: a.seat, units: a.units });
  for (const s of b.supports)
    out.push({ from: s.origin, to: s.target, kind: s.counted ? 'support' : 'void', seat: s.seat, units: s.units });
  return out;
}

export async function divanPanel(box: HTMLElement, ctx: DivanCtx): Promise<void> {
  clear(box);
  box.append(h('p', {}, ct('loading')));
  let ex: Explain;
  try {
    ex = await consoleApi.explain(ctx.token, ctx.season, ctx.divan);
  } catch (e) {
    clear(box);
    box.append(failure(e));
    return;
  }
  clear(box);
  const battles = ex.explanation.battles;
  ctx.map.battles(battles.map((b) => b.target));
  ctx.map.arrows(battles.flatMap(battleArrows));
  ctx.map.mark('whatif', []);
  const whatIf = whatIfSection(ctx, ex);
  box.append(
    h(
      'section',
      { id: 'console-explain', 'data-divan': ctx.divan },
      h('h2', {}, ct('explain', { n: ctx.divan })),
      h('p', { class: ex.verification.ok ? 'ok' : 'bad' }, ct(ex.verification.ok ? 'verified' : 'notVerified')),
      orderSets(ex),
      h('h3', {}, ct('battles')),
      battles.length ? h('div', {}, ...battles.map((b) => battleCard(ctx, b, whatIf.prefill))) : h('p', {}, ct('noBattles')),
      ex.explanation.dropped.length
        ? h(
            'div',
            {},
            h('h3', {}, ct('dropped')),
            h('ul', { id: 'console-dropped' }, ...ex.explanation.dropped.map((o) => h('li', { 'data-reason': o.reason }, `${ct('bey', { n: o.seat })}: ${pname(o.origin)} ${apiWord(o.kind)} → ${pname(o.target)}, ${o.units} — ${whySaid(o.reason, o.rule)}`))),
          )
        : null,
      (ex.corrections ?? []).length
        ? h('div', {}, h('h3', {}, ct('corrections')), h('ul', {}, ...(ex.corrections ?? []).map((c) => h('li', {}, `${c.version}: ${c.en}`))))
        : null,
    ),
    whatIf.root,
    forkSection(ctx),
    correctionSection(ctx),
    verifySection(ctx),
  );
}

function orderSets(ex: Explain): HTMLElement {
  const sets = ex.orders?.sets ?? [];
  const yn = (b: boolean) => ct(b ? 'yes' : 'no');
  return h(
    'div',
    { id: 'console-order-sets' },
    h('h3', {}, ct('orderSets')),
    h('p', {}, ct('lockedAt'), ' ', instant(ex.orders?.locked_at)),
    table(
      [ct('seat'), ct('submittedAt'), ct('sealed'), ct('beforeLock'), ct('orders')],
      sets.map((s) => [
        ct('bey', { n: s.seat }), // "3. bey" / "Bey 3", as everywhere else in the console
        instant(s.submitted_at, ct('atLock')),
        yn(s.sealed),
        yn(s.before_lock),
        s.orders.map((o) => `${pname(o.province)} ${apiWord(o.kind)}${o.target ? ` → ${pname(o.target)}` : ''}${o.units ? ` ${o.units}` : ''}`).join('; ') || '–',
      ]),
    ),
  );
}

type Prefill = { advance: (seat: number, from: number) => void; die: (target: number, side: 'attack' | 'defence', value: number) => void };

function battleCard(ctx: DivanCtx, b: BattleNote, prefill: Prefill): HTMLElement {
  const defender = b.defender === null ? ct('milis') : ct('bey', { n: b.defender });
  const items: Child[] = [];
  for (const g of b.groups) {
    items.push(h('p', {}, ct('group', { i: g.index, strength: g.strength, support: g.support, traitor: g.traitor ? ct('traitorMark') : '' })));
    for (const a of g.advances)
      items.push(
        h(
          'p',
          { class: 'advance', 'data-seat': a.seat, 'data-origin': a.origin },
          ct('advanceLine', { seat: a.seat, from: pname(a.origin), units: a.units, ordered: a.ordered, betrayal: a.betrayal ? ct('betrayalMark') : '' }),
          ' ',
          h('button', { type: 'button', class: 'prefill-remove', onclick: () => prefill.advance(a.seat, a.origin) }, ct('removeAdvance')),
        ),
      );
  }
  const bonus = b.bonus;
  return h(
    'article',
    { class: 'battle-card', 'data-target': b.target, 'data-outcome': b.outcome },
    h('h4', {}, ct('battleAt', { name: b.target_name, plate: b.target, outcome: said(b.outcome) })),
    h('p', {}, ct('defender', { who: defender, units: b.defender_units })),
    h('h5', {}, ct('attackers')),
    ...items,
    h('h5', {}, ct('supports')),
    h(
      'ul',
      {},
      ...b.supports.map((s) =>
        h(
          'li',
          { class: 'support', 'data-seat': s.seat, 'data-origin': s.origin, 'data-counted': String(s.counted), 'data-why': s.why },
          ct('supportLine', { seat: s.seat, from: pname(s.origin), units: s.units, kind: s.classified, counted: ct(s.counted ? 'counted' : 'notCounted'), why: whySaid(s.why, s.rules) }),
        ),
      ),
    ),
    h('p', {}, ct('bonuses', { m: bonus.memleket ?? 0, s: bonus.sur ?? 0, h: bonus.hemsehri ?? 0, t: bonus.total ?? 0 })),
    h('h5', {}, ct('dice')),
    h(
      'ul',
      {},
      ...(b.dice ?? []).map((d) =>
        h(
          'li',
          { class: 'die', 'data-side': d.side, 'data-value': d.value },
          ct('dieLine', {
            side: ct(d.side),
            value: d.value,
            divan: d.divan,
            purpose: d.purpose,
            key: d.key.join(', '),
            drawn: d.drawn === false ? ct('notDrawn') : '',
            pinned: d.pinned ? ct('pinnedMark') : '',
            rule: d.rule ?? 'R-5.4',
          }),
          ' ',
          h('button', { type: 'button', class: 'prefill-die', onclick: () => prefill.die(b.target, d.side, (d.value + 2) % 3) }, ct('pinDie')),
        ),
      ),
    ),
    h('p', {}, ct('totals', { a: b.attack ?? '–', d: b.defence ?? '–', al: b.attacker_losses ?? 0, dl: b.defender_losses ?? 0 })),
    h('p', {}, ct('rules', { rules: b.rules.join(', ') })),
    h(
      'button',
      {
        type: 'button',
        class: 'show-battle',
        onclick: () => {
          ctx.map.arrows(battleArrows(b));
          ctx.map.battles([b.target]);
          ctx.map.focus(b.target, 3);
        },
      },
      ct('showOnMap'),
    ),
  );
}

// --- what-if -------------------------------------------------------------------------------
function select(id: string, label: string, options: [string, string][], value: string): [HTMLElement, HTMLSelectElement] {
  const el = h('select', { id }, ...options.map(([v, text]) => h('option', { value: v, selected: v === value }, text)));
  return [h('label', { for: id }, label, el), el];
}

let rowId = 0;

function whatIfSection(ctx: DivanCtx, _ex: Explain): { root: HTMLElement; prefill: Prefill } {
  const rows = h('div', { id: 'whatif-rows' });
  const dice = h('div', { id: 'whatif-dice' });
  const result = h('div', { id: 'whatif-result', 'aria-live': 'polite' });
  const orderRow = (seat = 1, from = 1, kind = 'remove', to = '', units = 0) => {
    const n = ++rowId;
    const [l1] = field(`wi-seat-${n}`, ct('seat'), { type: 'number', min: 1, max: 19, value: seat, class: 'wi-seat' });
    const [l2] = field(`wi-from-${n}`, ct('from'), { type: 'number', min: 1, max: 81, value: from, class: 'wi-from' });
    const [l3] = select(`wi-kind-${n}`, ct('kind'), [['remove', 'remove'], ['advance', 'advance'], ['support', 'support'], ['hold', 'hold']], kind);
    const [l4] = field(`wi-to-${n}`, ct('to'), { type: 'number', min: 1, max: 81, value: to, class: 'wi-to' });
    const [l5] = field(`wi-units-${n}`, ct('units'), { type: 'number', min: 0, max: 12, value: units, class: 'wi-units' });
    const row = h('div', { class: 'row wi-order' }, l1, l2, l3, l4, l5);
    row.append(h('button', { type: 'button', onclick: () => row.remove() }, ct('remove')));
    rows.append(row);
  };
  const dieRow = (target = 1, side = 'attack', value = 0) => {
    const n = ++rowId;
    const [l1] = field(`wd-target-${n}`, ct('target'), { type: 'number', min: 1, max: 81, value: target, class: 'wd-target' });
    const [l2] = select(`wd-side-${n}`, ct('side'), [['attack', ct('attack')], ['defence', ct('defence')]], side);
    const [l3] = field(`wd-value-${n}`, ct('value'), { type: 'number', min: 0, max: 2, value, class: 'wd-value' });
    const row = h('div', { class: 'row wi-die' }, l1, l2, l3);
    row.append(h('button', { type: 'button', onclick: () => row.remove() }, ct('remove')));
    dice.append(row);
  };
  const num = (row: Element, cls: string) => Number((row.querySelector(`.${cls}`) as HTMLInputElement).value);
  const body = (): WhatIfIn => ({
    orders: [...rows.querySelectorAll('.wi-order')].map((r) => {
      const kind = (r.querySelector('select') as HTMLSelectElement).value as 'remove' | 'advance' | 'support' | 'hold';
      const to = (r.querySelector('.wi-to') as HTMLInputElement).value;
      return { seat: num(r, 'wi-seat'), from: num(r, 'wi-from'), kind, ...(to && kind !== 'remove' && kind !== 'hold' ? { to: Number(to) } : {}), units: num(r, 'wi-units') };
    }),
    dice: [...dice.querySelectorAll('.wi-die')].map((r) => ({
      target: num(r, 'wd-target'),
      side: (r.querySelector('select') as HTMLSelectElement).value as 'attack' | 'defence',
      value: num(r, 'wd-value'),
    })),
  });
  const run = async () => {
    clear(result);
    try {
      const out = await consoleApi.whatIf(ctx.token, ctx.season, ctx.divan, body());
      ctx.map.mark('whatif', out.provinces.map((p) => p.plate));
      const ownerOf = (o: number | null) => (o === null ? ct('milis') : ct('bey', { n: o }));
      result.append(h('div', {},
        h('p', { id: 'whatif-changed', 'data-changed': String(out.changed) }, out.changed ? ct('differs') : ct('unchanged')),
        out.battles.length
          ? h('div', {}, h('h4', {}, ct('changedBattles')), table([ct('province'), ct('recorded'), ct('whatIfCol')], out.battles.map((b) => [pname(b.target), said(b.recorded), h('span', { class: 'wi-outcome', 'data-target': b.target, 'data-outcome': b.what_if ?? '' }, said(b.what_if))])))
          : null,
        out.provinces.length
          ? h('div', { id: 'whatif-provinces' }, h('h4', {}, ct('changedProvinces')), table([ct('province'), ct('recorded'), ct('whatIfCol')], out.provinces.map((p) => [pname(p.plate), `${ownerOf(p.recorded.owner)} · ${p.recorded.units}`, `${ownerOf(p.what_if.owner)} · ${p.what_if.units}`])))
          : null,
        out.beys.length
          ? h('div', { id: 'whatif-beys' }, h('h4', {}, ct('changedBeys')), table([ct('seat'), ct('recorded'), ct('whatIfCol')], out.beys.map((b) => [ct('bey', { n: b.seat }), `${b.recorded.provinces} / ${b.recorded.units}`, `${b.what_if.provinces} / ${b.what_if.units}`])))
          : null,
      ));
    } catch (e) {
      result.append(failure(e));
    }
  };
  const root = h(
    'section',
    { id: 'console-whatif' },
    h('h3', {}, ct('whatIf')),
    rows,
    dice,
    h(
      'div',
      { class: 'row' },
      h('button', { type: 'button', id: 'whatif-add-order', onclick: () => orderRow() }, ct('addChange')),
      h('button', { type: 'button', id: 'whatif-add-die', onclick: () => dieRow() }, ct('addDie')),
      h('button', { type: 'button', id: 'whatif-run', onclick: () => void run() }, ct('run')),
    ),
    result,
  );
  return {
    root,
    prefill: {
      advance: (seat, from) => (orderRow(seat, from, 'remove'), root.scrollIntoView()),
      die: (target, side, value) => (dieRow(target, side, value), root.scrollIntoView()),
    },
  };
}

// --- fork, correction, verify, export ----------------------------------------------------------
function forkSection(ctx: DivanCtx): HTMLElement {
  const [label, seat] = field('fork-seat', ct('seat'), { type: 'number', min: 1, max: 19, value: 1 });
  const out = h('div', { id: 'fork-result' });
  const go = async () => {
    clear(out);
    try {
      const f = await consoleApi.fork(ctx.token, ctx.season, ctx.divan, Number(seat.value));
      out.append(h('p', {}, ct('forked', { id: f.season_id, seat: f.seat })), h('code', { class: 'tok' }, f.token), ' ', h('a', { href: `#/s/${f.season_id}` }, ct('openForked')));
    } catch (e) {
      out.append(failure(e));
    }
  };
  return h('section', { id: 'console-fork' }, h('h3', {}, ct('fork')), h('div', { class: 'row' }, label, h('button', { type: 'button', id: 'fork-do', onclick: () => void go() }, ct('forkDo'))), out);
}

function correctionSection(ctx: DivanCtx): HTMLElement {
  const [kindL, kind] = select('fix-kind', ct('kind'), [['province', ct('province')], ['gold', ct('gold')], ['revoke_hain', 'Hain']], 'province');
  const [provL, prov] = field('fix-province', ct('province'), { type: 'number', min: 1, max: 81 });
  const [ownerL, owner] = field('fix-owner', `${ct('owner')} (${ct('milis')}: –)`, { type: 'number', min: 1, max: 19 });
  const [unitsL, units] = field('fix-units', ct('units'), { type: 'number', min: 0, max: 12 });
  const [surL, sur] = field('fix-sur', ct('sur'), { type: 'checkbox' });
  const [seatL, seat] = field('fix-seat', ct('seat'), { type: 'number', min: 1, max: 19 });
  const [goldL, gold] = field('fix-gold', ct('gold'), { type: 'number', min: 0 });
  const [reasonL, reason] = field('fix-reason', ct('reason'), { type: 'text', size: 50, maxlength: 500 });
  const out = h('div', { id: 'fix-result', 'aria-live': 'polite' });
  let tried = '';
  const body = (): CorrectionIn => {
    const correction =
      kind.value === 'province'
        ? { kind: 'province' as const, province: Number(prov.value), owner: owner.value ? Number(owner.value) : null, units: Number(units.value), sur: sur.checked }
        : kind.value === 'gold'
          ? { kind: 'gold' as const, seat: Number(seat.value), gold: Number(gold.value) }
          : { kind: 'revoke_hain' as const, seat: Number(seat.value) };
    return { correction, reason: reason.value };
  };
  const change = (p: { owner: number | null; units: number; sur: boolean }) => `${p.owner === null ? ct('milis') : ct('bey', { n: p.owner })} · ${p.units}${p.sur ? ' ▣' : ''}`;
  const dry = async () => {
    clear(out);
    try {
      const b = body();
      const p = await consoleApi.dryRun(ctx.token, ctx.season, b);
      tried = JSON.stringify(b);
      out.append(
        h('p', { id: 'fix-dry', 'data-changed': String(p.changed) }, `${ct('dryRun')}: Divan ${p.divan}, v${p.version}`),
        table([ct('province'), ct('recorded'), ct('whatIfCol')], p.provinces.map((x) => [pname(x.plate), change(x.recorded), change(x.what_if)])),
        table([ct('seat'), ct('recorded'), ct('whatIfCol')], p.beys.map((x) => [ct('bey', { n: x.seat }), `${x.recorded.gold} · ${x.recorded.provinces}`, `${x.what_if.gold} · ${x.what_if.provinces}`])),
      );
    } catch (e) {
      out.append(failure(e));
    }
  };
  const apply = async () => {
    const b = body();
    if (JSON.stringify(b) !== tried) {
      clear(out);
      return void out.append(h('p', { id: 'fix-needs-dry', class: 'bad', role: 'alert' }, ct('applyNeedsDry')));
    }
    try {
      const done = await consoleApi.correct(ctx.token, ctx.season, b);
      tried = '';
      const reports = await consoleApi.reports(ctx.season, done.version);
      const lines = reports.reports.filter((r) => r.kind === 'correction').flatMap((r) => r.lines);
      out.append(
        h('p', { id: 'fix-applied', class: 'ok' }, ct('applied', { divan: done.divan, version: done.version })),
        h('h4', {}, ct('publicLines')),
        h('ul', { id: 'fix-public' }, ...lines.map((l) => h('li', {}, (l as { tr?: string; en?: string })[document.documentElement.lang === 'en' ? 'en' : 'tr'] ?? ''))),
      );
    } catch (e) {
      out.append(failure(e));
    }
  };
  return h(
    'section',
    { id: 'console-correct' },
    h('h3', {}, ct('correct')),
    h('div', { class: 'row' }, kindL, provL, ownerL, unitsL, surL, seatL, goldL),
    h('div', { class: 'row' }, reasonL),
    h('div', { class: 'row' }, h('button', { type: 'button', id: 'fix-dry-run', onclick: () => void dry() }, ct('dryRun')), h('button', { type: 'button', id: 'fix-apply', onclick: () => void apply() }, ct('apply'))),
    out,
  );
}

function verifySection(ctx: DivanCtx): HTMLElement {
  const out = h('div', { id: 'verify-result', 'aria-live': 'polite' });
  const dl = h('div', { id: 'export-link' });
  const go = async () => {
    clear(out);
    try {
      const v = await consoleApi.verify(ctx.token, ctx.season);
      out.append(
        h('p', { class: v.ok ? 'ok' : 'bad', 'data-ok': String(v.ok) }, v.ok ? ct('verifyOk') : ct('verifyBad', { why: v.first_bad_event?.why ?? v.replay })),
        table(['', ''], [['hash_chain', v.hash_chain], ['replay', v.replay], ['seed_commitment', v.seed_commitment], ['sealed_orders', v.sealed_orders], ['chat', v.chat], ['events', v.events], ['head', v.head ?? '–']]),
      );
    } catch (e) {
      out.append(e instanceof ApiProblem ? failure(e) : failure(String(e)));
    }
  };
  return h(
    'section',
    { id: 'console-verify' },
    h('h3', {}, ct('verify')),
    h(
      'div',
      { class: 'row' },
      h('button', { type: 'button', id: 'verify-do', onclick: () => void go() }, ct('verify')),
      h('button', { type: 'button', id: 'export-do', onclick: () => void downloadLink(dl, `${ctx.season}.ndjson`, () => exportBlob(ctx.token, ctx.season, true)) }, ct('exportFull')),
    ),
    out,
    dl,
  );
}
