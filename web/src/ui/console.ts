// The ops and auditor console, `#/console` (issue 26, docs/web.md "The console"): the staff
// token is entered once and kept in this module's memory only (never the browser's
// storage: a reload forgets it); everything goes through the public API. Ops find a
// season, see its calendar, Divans and ops-read trail, and work a Divan on the map
// (console_divan.ts); auditors see betrayal history with its evidence and the redacted export,
// and nothing R-14 keeps from them ever reaches this page (the server decides what they get).
import { consoleApi, exportBlob, playerHistory, seasonIdOf, type ChatActs, type SeasonBetrayals } from '../api/console';
import { h, clear, type Child } from './dom';
import { ProvinceMap } from './map';
import { apiWord, ct } from './console_text';
import { divanPanel } from './console_divan';
import { downloadLink, failure, field, instant, table } from './console_parts';

type Role = 'ops' | 'auditor';
let session: { role: Role; token: string } | null = null; // the tab's memory, nothing else
let lastSeason = '';

/** Lists the auditor's view shows for a season, in order, after its betrayal history. */
export const AUDITOR_LISTS: { id: string; render: (token: string, season: string) => Promise<HTMLElement> }[] = [
  // what ops read of the season's secrets, and when (ADR-53): auditors' to check
  { id: 'ops-reads', render: async (token, season) => trailSection(await consoleApi.opsReads(token, season)) },
  // chat moderation acts (R-15.2, issue 26): who reported or hid what, when; never a text
  { id: 'chat-acts', render: async (token, season) => actsSection(await consoleApi.chatActs(token, season)) },
];

function login(main: HTMLElement, done: () => void): void {
  const [tokenLabel, token] = field('console-token', ct('token'), { type: 'password', autocomplete: 'off', spellcheck: false, required: true });
  const radio = (value: Role, checked: boolean) =>
    h('label', {}, h('input', { type: 'radio', name: 'console-role', value, checked }), ` ${ct(value)}`);
  const form = h(
    'form',
    {
      class: 'row',
      onsubmit: (e: Event) => {
        e.preventDefault();
        const picked = form.querySelector<HTMLInputElement>('input[name=console-role]:checked');
        const value = token.value.trim();
        if (!value) return;
        session = { role: picked?.value === 'auditor' ? 'auditor' : 'ops', token: value };
        token.value = '';
        done();
      },
    },
    h('fieldset', {}, h('legend', {}, ct('role')), radio('ops', true), radio('auditor', false)),
    tokenLabel,
    h('button', { type: 'submit' }, ct('enter')),
  );
  main.append(h('section', {}, h('h2', {}, ct('token')), h('p', { class: 'note' }, ct('tokenNote')), form));
}

export function consoleScreen(main: HTMLElement): () => void {
  main.classList.add('console');
  const draw = () => {
    clear(main);
    main.append(h('h1', {}, ct('title')), h('p', {}, ct('intro')));
    if (session === null) return login(main, draw);
    const s = session;
    main.append(
      h(
        'p',
        { class: 'row' },
        ct('signedAs', { role: ct(s.role) }),
        h('button', { type: 'button', id: 'console-forget', onclick: () => ((session = null), draw()) }, ct('leave')),
      ),
    );
    if (s.role === 'ops') opsView(main, s.token);
    else auditorView(main, s.token);
  };
  draw();
  return () => main.classList.remove('console');
}

// --- ops ---------------------------------------------------------------------------------
function opsView(main: HTMLElement, token: string): void {
  const [label, input] = field('console-season', ct('seasonOrLink'), { type: 'text', value: lastSeason, size: 40 });
  const out = h('div', { id: 'console-season-view' });
  const form = h(
    'form',
    {
      class: 'row',
      onsubmit: (e: Event) => {
        e.preventDefault();
        const id = seasonIdOf(input.value);
        clear(out);
        if (id === null) return void out.append(h('p', { class: 'bad', role: 'alert' }, ct('noSeason')));
        lastSeason = id;
        void seasonView(out, token, id);
      },
    },
    label,
    h('button', { type: 'submit' }, ct('open')),
  );
  main.append(h('section', {}, h('h2', {}, ct('find')), form), out);
  if (lastSeason) void seasonView(out, token, lastSeason);
}

async function seasonView(out: HTMLElement, token: string, season: string): Promise<void> {
  out.append(h('p', {}, ct('loading')));
  let status, map, reads;
  try {
    [status, map, reads] = await Promise.all([
      consoleApi.status(season),
      consoleApi.map(season),
      consoleApi.opsReads(token, season),
    ]);
  } catch (e) {
    clear(out);
    out.append(failure(e));
    return;
  }
  clear(out);
  const mapView = new ProvinceMap(() => undefined);
  mapView.update(map.provinces, { seat: null, hain: new Set() });
  const cal = status.calendar;
  const divanBox = h('div', { id: 'console-divan' });
  const resolved = Array.from({ length: status.divan }, (_, i) => i + 1);
  const pick = (n: number) => divanPanel(divanBox, { token, season, divan: n, map: mapView });
  out.append(
    h(
      'section',
      { 'aria-labelledby': 'console-season-title' },
      h('h2', { id: 'console-season-title' }, ct('season', { id: season })),
      h('p', { id: 'console-status' }, ct('statusLine', { mode: apiWord(status.mode), phase: apiWord(status.phase), divan: status.divan, version: status.version })),
      h('h3', {}, ct('calendar')),
      cal
        ? table(
            [ct('divans'), ct('at')],
            cal.divans.map((d) => [ct('divanN', { n: d.divan }), instant(d.at)]),
          )
        : h('p', {}, ct('noCalendar')),
      h('h3', {}, ct('divans')),
      resolved.length
        ? h(
            'div',
            { class: 'row', id: 'console-divans' },
            ...resolved.map((n) => h('button', { type: 'button', 'data-divan': n, onclick: () => pick(n) }, ct('divanN', { n }))),
          )
        : h('p', {}, ct('noDivans')),
    ),
    h('div', { class: 'console-grid' }, mapView.root, divanBox),
    trailSection(reads),
  );
}

function trailSection(reads: Awaited<ReturnType<typeof consoleApi.opsReads>>): HTMLElement {
  return h(
    'section',
    { class: 'console-trail' },
    h('h3', {}, ct('trail')),
    reads.reads.length
      ? table(
          ['#', ct('what'), ct('actor'), ct('at')],
          reads.reads.map((r) => [r.id, r.what, r.actor, instant(r.at)]),
        )
      : h('p', {}, ct('noReads')),
  );
}

const CHANNEL_KIND = { public: 'chPublic', private: 'chPrivate', group: 'chGroup' } as const;

function actsSection(acts: ChatActs): HTMLElement {
  return h(
    'section',
    { class: 'chat-acts' },
    h('h3', {}, ct('chatActs')),
    acts.acts.length
      ? table(
          ['#', ct('what'), ct('message'), ct('channel'), ct('actor'), ct('at')],
          acts.acts.map((a) => [a.act_id, ct(a.act), a.message_id, ct(CHANNEL_KIND[a.channel_kind]), a.by, instant(a.at)]),
        )
      : h('p', {}, ct('noActs')),
  );
}

// --- auditors ----------------------------------------------------------------------------
function auditorView(main: HTMLElement, token: string): void {
  const [plateLabel, plate] = field('audit-memleket', ct('memleketPlate'), { type: 'number', min: 1, max: 81 });
  const [seasonLabel, seasonInput] = field('audit-season', ct('seasonFilter'), { type: 'text', size: 40, value: lastSeason });
  const [playerLabel, playerInput] = field('audit-player', ct('playerFilter'), { type: 'text', size: 24, spellcheck: false });
  const out = h('div', { id: 'audit-results' });
  const form = h(
    'form',
    {
      class: 'row',
      onsubmit: (e: Event) => {
        e.preventDefault();
        const filter = { plate: Number(plate.value) || null, season: seasonIdOf(seasonInput.value), player: playerInput.value.trim() || null };
        void showHistory(out, token, filter);
      },
    },
    plateLabel,
    seasonLabel,
    playerLabel,
    h('button', { type: 'submit' }, ct('show')),
  );
  main.append(h('section', {}, h('h2', {}, ct('history')), h('p', { class: 'note' }, ct('historyNote')), form), out);
}

type Filter = { plate: number | null; season: string | null; player: string | null };

async function showHistory(out: HTMLElement, token: string, { plate, season, player }: Filter): Promise<void> {
  clear(out);
  if (plate === null && season === null && player === null) return void out.append(h('p', { class: 'bad', role: 'alert' }, ct('needOne')));
  if (season) lastSeason = season;
  let seasons: SeasonBetrayals[];
  try {
    if (player !== null) {
      // a player's seats (seat_bound.v1), then memleket if given as well
      const ofPlate = (b: SeasonBetrayals['betrayals'][number]) => plate === null || b.traitor.memleket === plate || b.victim.memleket === plate;
      seasons = (await playerHistory(token, player, season)).map((s) => ({ ...s, betrayals: s.betrayals.filter(ofPlate) }));
    } else if (plate !== null) {
      seasons = (await consoleApi.memleketHistory(token, plate)).seasons.filter((s) => !season || s.season_id === season);
    } else {
      seasons = [await consoleApi.history(token, season as string)];
    }
  } catch (e) {
    return void out.append(failure(e));
  }
  const names = ProvinceMap.names();
  if (seasons.every((s) => s.betrayals.length === 0)) out.append(h('p', {}, ct('noBetrayals')));
  for (const s of seasons) {
    const box = h('div', {});
    const dl = h('div', { class: 'row' });
    out.append(
      h(
        'section',
        { class: 'audit-season', 'data-season': s.season_id },
        h('h3', {}, ct('seasonHead', { id: s.season_id, phase: apiWord(s.phase) })),
        h('ul', {}, ...s.betrayals.map((b) => betrayalItem(b, names))),
        h('button', { type: 'button', class: 'audit-export', onclick: () => void downloadLink(dl, `${s.season_id}.redacted.ndjson`, () => exportBlob(token, s.season_id, false)) }, ct('exportRedacted')),
        dl,
        box,
      ),
    );
    for (const list of AUDITOR_LISTS) box.append(await list.render(token, s.season_id).catch(failure));
  }
}

function betrayalItem(b: SeasonBetrayals['betrayals'][number], names: Map<number, string>): HTMLElement {
  const name = (p: number) => `${names.get(p) ?? p} (${p})`;
  const lines: Child[] = [
    h(
      'p',
      {},
      ct('betrayalLine', {
        divan: b.divan,
        traitor: b.traitor.seat,
        tm: b.traitor.memleket ?? '–',
        victim: b.victim.seat,
        vm: b.victim.memleket ?? '–',
        province: name(b.province),
        through: b.hain_through,
      }),
    ),
  ];
  if (!b.treaty && !b.orders && !b.battle) lines.push(h('p', { class: 'note' }, ct('notFull')));
  if (b.treaty)
    lines.push(
      h('p', { class: 'evidence-treaty' }, ct('treatyLine', { kind: apiWord(b.treaty.kind), beys: b.treaty.beys.join(', '), from: b.treaty.from_divan ?? '?', through: b.treaty.through_divan })),
    );
  if (b.orders)
    lines.push(h('p', { class: 'evidence-orders' }, ct('ordersLine', { orders: b.orders.map(([seat, from, units]) => `${ct('bey', { n: seat ?? '?' })}: ${name(from ?? 0)} → ${units}`).join('; ') })));
  if (b.battle)
    lines.push(
      h('p', { class: 'evidence-battle' }, ct('battleLine', { outcome: apiWord(b.battle.outcome), a: b.battle.attack ?? '–', d: b.battle.defence ?? '–', ad: b.battle.attack_die ?? '–', dd: b.battle.defence_die ?? '–' })),
    );
  return h('li', { class: 'betrayal', 'data-divan': b.divan, 'data-province': b.province }, ...lines);
}
