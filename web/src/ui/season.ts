// A season: the map and the list view, the order panel, the order set, "Divanı topla" (trial),
// the Divan report (public and own lines, battles, leaderboard; past Divans), kept fresh by
// the event stream.
import { notifyCard } from './notify';
import {
  api,
  ApiProblem,
  type Battle,
  type Board,
  type MapView,
  type PrivateView,
  type PublicBey,
  type Report,
  type Status,
  type Schemas,
} from '../api/client';
import { lang, t, type Key } from '../i18n';
import {
  clamp,
  dropOrder,
  faultyProvince,
  legalTargets,
  maxSent,
  orderCount,
  ownProvinces,
  parseUnits,
  putOrder,
  toRequest,
  type Draft,
  type Kind,
} from '../logic/orders';
import { bothTimes, countdown, isolated, lastQuarter } from '../logic/format';
import { namedLine } from '../logic/lines';
import { sealWords } from '../logic/seal';
import { findFocus, focusKey, type FocusKey } from '../logic/focus';
import { findSeason, loadPlayer, saveSeason, type Saved } from '../logic/storage';
import { canHire, canSur, COST, purchasable, type Spend } from '../logic/spend';
import { adminCard } from './season_admin';
import { keyCard, showToken } from './token';
import { battleItem, newsCardEl } from './cards';
import { newsCard, newsPlates } from '../logic/news';
import { markGlyph, titleMarks, titleName } from '../logic/titles';
import { freeMemleket, visitorNote } from '../logic/join';
import { membersText } from '../logic/problems';
import { offerAnsweredText, offerOutcomes } from '../logic/offers';
import { announced, askAt, catchingUp, caughtUp, notYet, ownViewAt } from '../logic/refresh';
import { loadBoard, namesOf, neighboursOf } from './board';
import { h } from './dom';
import { nameField, problemText } from './home';
import { ProvinceMap } from './map';
import { clearNotice, notice } from './notice';
import { SeasonStream } from './stream';
import { ChatPanel } from './chat';
import { pressKey } from '../logic/press';

type Titles = Schemas['TitlesOut'];

/** The control a season screen drawn anew gives the focus to once it is built (the key card's
 * renewal button after a renewal: the old screen, and the focus with it, is gone). */
let focusOnOpen: string | null = null;

/** The notice that this device holds no key of the season (taken back while it may join). */
const NOT_SAVED = 'not-saved';
// the notice that the reads wait for the read side, said once they have waited this long
const CATCHING_UP = 'catching-up';

interface State {
  board: Board;
  status: Status | null;
  map: MapView | null;
  me: PrivateView | null;
  reports: Report[];
  leaderboard: PublicBey[];
  titles: Titles | null;
  battles: Map<number, Battle[]>;
  draft: Draft[];
  dirty: boolean;
  selected: number | null;
  kind: Kind;
  units: number;
  shown: number | null; // the Divan whose report is shown
  busy: boolean;
  refusal: { province: number | null; text: string; members: string } | null;
  joinPick: number | null; // the memleket picked to join (on the map or in the list)
  // what the player chose in the offer form and the Kurultay's, kept across reads: each read
  // draws the forms again, and a choice in the middle of being made must survive it
  offerTo: number | null;
  offerKind: 'pact' | 'alliance';
  voteFor: number | null;
  sentNote: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const REGISTRATION_READ_MS = 15_000;

export function seasonScreen(main: HTMLElement, season: string): () => void {
  const saved: Saved | null = findSeason(localStorage, season);
  let stream: SeasonStream | null = null;
  let ticker: ReturnType<typeof setInterval> | null = null;
  let gone = false;
  const onGone: (() => unknown)[] = [];
  main.replaceChildren(h('p', {}, t('loading')));

  void loadBoard()
    .then((board) => start(board))
    .catch((e: unknown) => main.replaceChildren(h('p', { class: 'error', role: 'alert' }, problemText(e))));

  function start(board: Board): void {
    const names = namesOf(board);
    const neighbours = neighboursOf(board);
    const nameOf = (p: number | null | undefined) => (p ? `${names.get(p) ?? p}` : '');
    const st: State = {
      board,
      status: null,
      map: null,
      me: null,
      reports: [],
      leaderboard: [],
      titles: null,
      battles: new Map(),
      draft: [],
      dirty: false,
      selected: null,
      kind: 'advance',
      units: 1,
      shown: null,
      busy: false,
      refusal: null,
      sentNote: '',
      joinPick: null,
      offerTo: null,
      offerKind: 'pact',
      voteFor: null,
    };
    let seat = saved?.seat ?? null;
    let token = saved?.token ?? null;
    // the saved key refused (401: renewed on another device, or reissued by ops): the season is
    // shown as a spectator sees it, with a notice saying so and where to paste the new key
    let keyRefused = false;
    // the cards that act with the saved key (notifications, renewing it): hidden once it is refused
    const keyed: HTMLElement[] = [];
    function ownCards(cards: HTMLElement[]): HTMLElement[] {
      keyed.push(...cards);
      return cards;
    }
    /** The bey's own view; null once its key is refused (a 401 believed only from a read side
     * at `stored`, the store's version the status said: logic/refresh.ts `ownViewAt`). */
    async function ownView(key: string, stored: number, at: number | null = null): Promise<PrivateView | null> {
      const view = await ownViewAt((v) => api.private(season, key, v ?? at), stored);
      if (view !== 'refused') return view;
      keyRefused = true;
      seat = null;
      token = null;
      return null;
    }

    /** How a bey is shown (R-15.5): its chosen name, a computer bey's given one, or its seat
     * form in the player's language. Always drawn as text (ui/dom.ts); a name in a
     * right-to-left script isolated (logic/format.ts `isolated`). */
    function beyName(n: number): string {
      const named = st.status?.beys?.find((x) => x.seat === n);
      if (named) return named.chosen || named.computer ? isolated(named.name) : t('bey', { n });
      const pub = st.leaderboard.find((x) => x.seat === n);
      if (pub?.name && (pub.chosen_name || pub.computer)) return isolated(pub.name);
      return t('bey', { n });
    }

    /** A report line (whose text names seats, "3. bey" / "Bey 3") with the names of the beys it
     * names beside it: the server's lines refer to seats, the names are the read side's. */
    function lineItem(l: { kind: string; tr: string; en: string }, before = ''): HTMLElement {
      const text = lang() === 'tr' ? l.tr : l.en;
      const seatForm = (n: number) => t('bey', { n });
      const missionName = (id: string) => {
        const m = st.board.missions.find((x) => x.id === id);
        return m ? (lang() === 'tr' ? m.name.tr : m.name.en) : null;
      };
      const parts = namedLine(text, (n) => (beyName(n) !== seatForm(n) ? beyName(n) : null), seatForm, missionName);
      return h('li', { 'data-kind': l.kind }, before, ...parts.map((p) => (p.name ? h('span', { class: 'names small' }, p.text) : p.text)));
    }

    /** The bey's own seal line in words; its salt and digest in a details element, for those
     * who verify (logic/seal.ts). */
    function sealItem(l: { kind: string; data: Record<string, unknown> }): HTMLElement | null {
      const seal = sealWords(l, lang());
      if (!seal) return null;
      return h(
        'li',
        { 'data-kind': l.kind },
        seal.words,
        h(
          'details',
          { class: 'seal' },
          h('summary', {}, t('sealVerify')),
          h('dl', {}, h('dt', {}, t('sealSalt')), h('dd', {}, h('code', {}, seal.salt)), h('dt', {}, t('sealDigest')), h('dd', {}, h('code', {}, seal.digest))),
          h('p', { class: 'small' }, t('sealRecipe')),
        ),
      );
    }

    const map = new ProvinceMap((plate) => pick(plate, true));
    // on a phone the whole country is small: start close to the player's memleket
    if (saved && window.matchMedia('(max-width: 760px)').matches) map.focus(saved.memleket, 3);
    const info = h('section', { class: 'info', 'aria-label': t('season'), id: 'season-info', tabindex: -1 });
    const panel = h('section', { class: 'card panel', id: 'order-panel', 'aria-labelledby': 'panel-h', 'aria-live': 'polite', tabindex: -1 });
    const orders = h('section', { class: 'card orders', 'aria-labelledby': 'orders-h' });
    const list = h('section', { class: 'card list', 'aria-labelledby': 'list-h' });
    const report = h('section', { class: 'card report', 'aria-labelledby': 'report-h' });
    const streamState = h('p', { class: 'small stream', role: 'status' });
    const clock = h('section', { class: 'card clock', 'aria-labelledby': 'clock-h' });
    const diplomacy = h('section', { class: 'card diplomacy', 'aria-labelledby': 'diplomacy-h' });
    const kurultay = h('section', { class: 'card kurultay', 'aria-labelledby': 'kurultay-h' });
    const missions = h('section', { class: 'card missions', 'aria-labelledby': 'missions-h' });
    const joinBox = h('section', { class: 'card join', 'aria-labelledby': 'join-h' });
    // the chat (issue 24): a bey's, once the status says the season is live (a trial has none)
    const chatBox = h('div', { class: 'chat-slot' });
    let chat: ChatPanel | null = null;
    // the beys one can write to: every seated human but oneself, from the status (which seats
    // a join at once, registration included), else the leaderboard
    const humans = () => (st.status?.beys?.length ? st.status.beys : st.leaderboard).filter((b) => !b.computer && b.seat !== seat).map((b) => b.seat);
    onGone.push(() => chat?.stop());
    // the live lock as an instant on this device's clock: the server's seconds_to_lock when
    // read, so a wrong device clock does not move it
    let lockAt: number | null = null;
    // when the season was last read: during registration nothing on the stream tells of a
    // join, so a bey's screen reads the season again every REGISTRATION_READ_MS (the beys to
    // write to and make offers to); not a visitor's, whose join form would be drawn anew
    let readAt = Date.now();
    let periodS = 0;

    main.replaceChildren(
      info,
      clock,
      joinBox,
      h('div', { class: 'play' }, h('div', { class: 'mapcol' }, map.root, legend()), h('div', { class: 'side' }, panel, orders)),
      kurultay,
      list,
      diplomacy,
      chatBox,
      missions,
      report,
      ...ownCards(saved ? [notifyCard(season, saved.token)] : []),
      streamState,
    );

    // the token screen (ui/token.ts): offered once after the start; the key card renews it
    if (saved && sessionStorage.getItem('seksenbir.fresh') === season) {
      sessionStorage.removeItem('seksenbir.fresh');
      // closed, the focus goes to the season's heading: the start button that opened the dialog
      // is gone with home, and the focus fell to the page (a keyboard began again at its top)
      // — unless the player has already moved it on (the dialog's close event is a task of its
      // own: a click into the chat before it ran lost its focus to the heading)
      showToken(saved, () => { if (!document.activeElement || document.activeElement === document.body) info.focus(); }, true);
    }
    // renewed, the screen is drawn anew with the new key: its renewal button, which opened the
    // new key's dialog, takes the focus again (it fell to the page with the old screen)
    if (saved) {
      main.append(...ownCards([keyCard(saved, () => {
        focusOnOpen = 'token-rotate';
        window.dispatchEvent(new HashChangeEvent('hashchange'));
      })]));
      if (focusOnOpen) document.getElementById(focusOnOpen)?.focus();
    }
    focusOnOpen = null;
    // the season admin's card, where this device opened the season (docs/web.md "Season admin")
    const admin = saved?.admin ? adminCard(season, saved.admin, () => void refresh(), () => info) : null;
    if (admin) main.append(admin.root);

    // what a visitor (no key of the season here) is told waits for the season's status
    // (logic/join.ts `visitorNote`): drawn before it, a live season's registration said
    // "you can only watch" above its own join form
    let visitorSaid: 'join' | 'watch' | null = null;
    function renderVisitor(): void {
      const note = visitorNote(st.status, saved !== null && !keyRefused, keyRefused);
      if (note === visitorSaid) return;
      visitorSaid = note;
      if (note === 'watch') notice(t('notFound'), 'info', NOT_SAVED);
      else clearNotice(NOT_SAVED, t('notFound'));
    }

    function own(): number[] {
      return st.map && seat !== null ? ownProvinces(st.map.provinces, seat) : [];
    }

    function targets(): number[] {
      if (st.selected === null || !st.map || seat === null) return [];
      return legalTargets(neighbours, st.map.provinces, seat, st.selected, st.kind);
    }

    function pick(plate: number, onMap = false): void {
      if (seat === null && !joinBox.hidden) {
        // registration: a tap on a free memleket picks it for the join form
        if (freeMemleket(st.map?.provinces ?? null, [plate]).length) st.joinPick = plate;
        renderJoin();
        return;
      }
      if (seat === null || !st.map) return;
      if (st.selected !== null && st.kind !== 'hold' && targets().includes(plate)) {
        choose(plate);
        return;
      }
      if (st.map.provinces[String(plate)]?.owner !== seat) {
        st.selected = null;
        notice(`${nameOf(plate)}: ${t('notYours')}`, 'info', 'pick');
        render();
        return;
      }
      notice('', 'info', 'pick');
      st.selected = plate;
      const units = st.map.provinces[String(plate)]?.units ?? 1;
      const existing = st.draft.find((o) => o.province === plate);
      st.kind = maxSent(units) < 1 ? 'hold' : (existing?.kind ?? 'advance');
      st.units = existing && existing.kind !== 'hold' ? existing.units : Math.max(1, maxSent(units));
      render();
      // from the list, the panel takes the focus; on the map the view stays where it is
      panel.focus({ preventScroll: onMap });
    }

    function choose(target: number | null): void {
      if (st.selected === null) return;
      st.draft = putOrder(st.draft, {
        province: st.selected,
        kind: st.kind,
        target: st.kind === 'hold' ? null : target,
        units: st.kind === 'hold' ? 0 : st.units,
      });
      st.dirty = true;
      st.refusal = null;
      st.sentNote = '';
      st.selected = null;
      render();
    }

    function kindLabel(k: Kind): string {
      return t(k);
    }

    function orderText(o: Draft): string {
      if (o.kind === 'hold') return t('holdLine', { p: nameOf(o.province) });
      return t('orderLine', { p: nameOf(o.province), k: kindLabel(o.kind), u: o.units, t: nameOf(o.target) });
    }

    function renderInfo(): void {
      const s = st.status;
      const parts = [
        `${t('season')} ${season.slice(0, 8)}`,
        s ? (s.mode === 'trial' ? t('trial') : t('live')) : '',
        s ? `${t('divan')} ${s.divan}` : '',
      ];
      const press = pressKey(s?.mode, s?.press); // issue 24: a live season's press mode
      if (st.me) parts.push(`${beyName(st.me.seat)} (${t('you')})`, `${t('gold')} ${st.me.gold}`);
      const badges: (HTMLElement | string)[] = [];
      if (st.me?.hain_through) badges.push(h('span', { class: 'badge hain' }, t('hainThrough', { n: st.me.hain_through })));
      if (st.me?.exiled) badges.push(h('span', { class: 'badge' }, t('surgun')));
      if (s?.phase === 'over') badges.push(h('span', { class: 'badge' }, t('seasonOver')));
      if (s?.cancelled) badges.push(h('span', { class: 'badge cancelled' }, t('seasonCancelled')));
      if (press) badges.push(h('span', { class: 'badge press', 'data-press': s?.press ?? '' }, t(press)));
      info.replaceChildren(h('h1', {}, parts.filter(Boolean).join(' · ')), ...badges);
      if (keyRefused) {
        for (const card of keyed) card.hidden = true;
        info.append(h('p', { class: 'error', role: 'alert', id: 'key-refused' }, t('keyRefused'), ' ', h('a', { href: '#/' }, t('keyRefusedHome'))));
      }
    }

    function renderPanel(): void {
      const p = st.selected;
      if (st.me && st.me.next_divan === null) {
        // after Divan 16 (the Kurultay, the end) no order has a Divan to count for
        panel.replaceChildren(h('h2', { id: 'panel-h' }, t('orderPanel')), h('p', { class: 'small' }, t('noMoreOrders')));
        return;
      }
      if (p === null || !st.map) {
        // a visitor's panel is hidden (draw); what it is told is renderVisitor's
        panel.replaceChildren(h('h2', { id: 'panel-h' }, t('orderPanel')), h('p', { class: 'small' }, t('pickProvince')));
        return;
      }
      const here = st.map.provinces[String(p)];
      const units = here?.units ?? 0;
      const canLeave = maxSent(units) >= 1;
      const kinds = h('fieldset', { class: 'kinds' }, h('legend', {}, t('orderFor', { p: nameOf(p) })));
      for (const k of ['advance', 'support', 'hold'] as Kind[]) {
        const id = `kind-${k}`;
        const input = h('input', {
          type: 'radio',
          name: 'kind',
          id,
          value: k,
          checked: st.kind === k,
          disabled: k !== 'hold' && !canLeave,
          onchange: () => {
            st.kind = k;
            render();
          },
        });
        kinds.append(h('span', { class: 'kind' }, input, h('label', { for: id }, kindLabel(k))));
      }
      const body: (HTMLElement | string | null)[] = [
        h('p', {}, `${nameOf(p)} — ${t('units')}: ${units}`),
        kinds,
      ];
      if (!canLeave) body.push(h('p', { class: 'note' }, t('cannotLeave')));
      if (st.kind !== 'hold' && canLeave) {
        const input = h('input', {
          id: 'units',
          type: 'number',
          inputmode: 'numeric',
          min: 1,
          max: 12,
          step: 1,
          value: st.units,
        }) as HTMLInputElement;
        const note = h('p', { class: 'note', id: 'clamp' });
        const sayClamp = () => {
          const { sent, clamped } = clamp(units, st.units);
          note.className = clamped ? 'note warn' : 'note';
          note.replaceChildren(t('clampNote', { max: maxSent(units) }), clamped ? ` (${sent})` : '');
        };
        sayClamp();
        // only the clamp's note changes: the panel is not drawn again, so a Tab after the
        // number goes on to the targets (drawn again, the focus fell to the page)
        input.addEventListener('change', () => {
          const n = parseUnits(input.value);
          if (n !== null) st.units = n;
          input.value = String(st.units);
          sayClamp();
        });
        body.push(
          h('label', { for: 'units' }, t('howMany')),
          ' ',
          input,
          note,
          h('p', {}, t('chooseTarget')),
        );
        const tl = h('ul', { class: 'targets' });
        for (const target of targets()) {
          const owner = st.map.provinces[String(target)]?.owner ?? null;
          const what = owner === null ? t('targetMilis') : owner === seat ? t('targetMove') : `${t('targetAttack')}: ${beyName(owner)}`;
          tl.append(
            h(
              'li',
              {},
              h('button', { type: 'button', class: 'target', 'data-target': target, onclick: () => choose(target) }, `${nameOf(target)} (${st.kind === 'support' ? t('support') : what})`),
            ),
          );
        }
        body.push(tl);
      } else {
        body.push(h('button', { type: 'button', class: 'primary', onclick: () => choose(null) }, t('hold')));
      }
      const owner = here?.owner ?? null;
      const talk = chat && owner !== null && owner !== seat && humans().includes(owner) ? chat : null;
      body.push(
        ' ',
        h('button', { type: 'button', class: 'quiet', onclick: () => { st.selected = null; render(); } }, t('cancel')),
        talk && owner !== null ? h('button', { type: 'button', class: 'talk', onclick: () => talk.talkTo(owner) }, t('chatMessageBey', { b: beyName(owner) })) : null,
        spendBox(p),
      );
      panel.replaceChildren(h('h2', { id: 'panel-h' }, t('orderPanelFor', { p: nameOf(p) })), ...body.filter((b) => b !== null));
    }

    function spendBox(p: number): HTMLElement | null {
      if (!st.map || !st.me || seat === null || !token) return null;
      const gold = st.me.gold;
      const locked = st.busy || st.status?.locked === true || st.status?.phase !== 'running';
      const button = (kind: Spend, province: number, label: string, allowed: boolean) =>
        h('button', { type: 'button', class: 'spend', 'data-spend': kind, disabled: locked || !allowed, onclick: () => void spend(kind, province) }, label);
      const buys = purchasable(neighbours, st.map.provinces, seat, p).map((n) =>
        button('satın_alma', n, t('spendBuy', { p: nameOf(n), c: COST.satın_alma }), gold >= COST.satın_alma),
      );
      return h(
        'div',
        { class: 'spending' },
        h('h3', {}, `${t('spending')} — ${t('gold')}: ${gold}`),
        h(
          'div',
          { class: 'actions' },
          button('sur', p, t('spendSur', { c: COST.sur }), canSur(st.map.provinces, seat, p, gold)),
          button('paralı_asker', p, t('spendHire', { c: COST.paralı_asker }), canHire(st.map.provinces, seat, p, gold)),
          ...buys,
        ),
      );
    }

    async function act(what: () => Promise<unknown>, done: string): Promise<void> {
      st.busy = true;
      render();
      try {
        const out = await what();
        notice(done);
        // the read side shows the command once it has projected the version it was stored at
        const v = (out as { version?: unknown } | null)?.version;
        await refresh(null, typeof v === 'number' ? v : null);
      } catch (e) {
        notice(problemText(e), 'error');
      } finally {
        st.busy = false;
        render();
      }
    }

    function spend(kind: Spend, province: number): Promise<void> {
      return act(() => api.spend(season, token ?? '', kind, province), t('spent'));
    }

    function renderDiplomacy(): void {
      const me = st.me;
      const key = token;
      if (!me || !key || seat === null) {
        diplomacy.hidden = true;
        return;
      }
      diplomacy.hidden = false;
      const kindText = (k: 'pact' | 'alliance') => t(k);
      const running = st.status?.phase === 'running' && !st.busy;
      const seats = st.leaderboard.map((b) => b.seat).filter((n) => n !== seat).sort((a, b) => a - b);
      const to = h('select', { id: 'offer-to' }) as HTMLSelectElement;
      for (const n of seats) to.append(h('option', { value: n, selected: n === st.offerTo }, beyName(n)));
      to.addEventListener('change', () => (st.offerTo = Number(to.value)));
      const kind = h('select', { id: 'offer-kind' }) as HTMLSelectElement;
      for (const k of ['pact', 'alliance'] as const) kind.append(h('option', { value: k, selected: k === st.offerKind }, t(k)));
      kind.addEventListener('change', () => (st.offerKind = kind.value === 'alliance' ? 'alliance' : 'pact'));
      const form = h(
        'form',
        { class: 'actions' },
        // each label kept with its field: at 360 px "Ne" once ended a line, its field the next
        h('span', { class: 'field' }, h('label', { for: 'offer-to' }, t('offerTo')), to),
        h('span', { class: 'field' }, h('label', { for: 'offer-kind' }, t('offerKind')), kind),
        h('button', { type: 'submit', disabled: !running }, t('makeOffer')),
      );
      form.addEventListener('submit', (e) => {
        e.preventDefault();
        void act(() => api.offer(season, key, Number(to.value), kind.value as 'pact' | 'alliance'), t('offerMade'));
      });
      diplomacy.replaceChildren(
        h('h2', { id: 'diplomacy-h' }, t('diplomacy')),
        me.treaties.length === 0
          ? h('p', {}, t('noTreaties'))
          : h('ul', {}, ...me.treaties.map((tr) => h('li', {}, t('treatyLine', { k: kindText(tr.kind), b: beyName(tr.partner), n: tr.through_divan })))),
        h('h3', {}, t('offersIn')),
        h(
          'ul',
          { class: 'offers-in' },
          ...me.offers_in.map((o) =>
            h(
              'li',
              { 'data-from': o.from },
              t('offerIn', { b: beyName(o.from), k: kindText(o.kind) }),
              ' ',
              o.answer
                ? `(${t(`answered_${o.answer}` as Key)})`
                : h(
                    'span',
                    {},
                    h('button', { type: 'button', class: 'answer', 'data-from': o.from, disabled: !running, onclick: () => void act(() => api.answer(season, key, o.from, 'accept'), t('offerAccepted')) }, t('accept')),
                    ' ',
                    h('button', { type: 'button', class: 'answer', 'data-from': o.from, disabled: !running, onclick: () => void act(() => api.answer(season, key, o.from, 'reject'), t('offerRejected')) }, t('reject')),
                  ),
            ),
          ),
        ),
        h('h3', {}, t('offersOut')),
        h(
          'ul',
          { class: 'offers-out' },
          ...me.offers_out.map((o) =>
            h(
              'li',
              { 'data-to': o.to },
              t('offerOut', { b: beyName(o.to), k: kindText(o.kind) }),
              ' ',
              h(
                'button',
                {
                  type: 'button',
                  class: 'quiet',
                  disabled: !running,
                  'aria-label': t('withdrawFrom', { b: beyName(o.to) }),
                  onclick: () => void act(() => api.withdraw(season, key, o.to), t('withdrawn')),
                },
                t('withdraw'),
              ),
            ),
          ),
        ),
        form,
        ...outcomesPart(),
      );
    }

    function renderChat(): void {
      if (chat) chat.beysChanged();
      if (chat || !token || seat === null || st.status?.mode !== 'live') return;
      chat = new ChatPanel(season, token, seat, humans, beyName);
      chatBox.replaceChildren(chat.root);
    }

    /** What became of the offers made and received (the own reports' `offer` lines). */
    function outcomesPart(): HTMLElement[] {
      const out = offerOutcomes(st.me?.reports);
      if (out.length === 0) return [];
      // the lines name seats: the names beside them, as in the reports
      return [h('h3', {}, t('offerOutcomes')), h('ul', { class: 'outcomes' }, ...out.map((o) => lineItem(o.line, `${t('divan')} ${o.divan}: `)))];
    }

    function renderMissions(): void {
      const me = st.me;
      if (!me) {
        missions.hidden = true;
        return;
      }
      missions.hidden = false;
      const text = (x: { tr: string; en: string }) => (lang() === 'tr' ? x.tr : x.en);
      missions.replaceChildren(
        h('h2', { id: 'missions-h' }, t('missions')),
        h('ul', {}, ...me.missions.map((m) => h('li', { class: m.done ? 'done' : '' }, text(m.status), h('div', { class: 'small' }, text(m.completed_when))))),
      );
    }

    let voted = false;
    function renderKurultay(): void {
      const s = st.status;
      const key = token;
      if (!s || s.phase !== 'kurultay' || !key || seat === null || voted) {
        kurultay.hidden = true;
        return;
      }
      kurultay.hidden = false;
      const pickSeat = h('select', { id: 'vote-for' }) as HTMLSelectElement;
      for (const b of st.leaderboard.filter((x) => x.seat !== seat)) pickSeat.append(h('option', { value: b.seat, selected: b.seat === st.voteFor }, `${beyName(b.seat)} · ${nameOf(b.memleket)}`));
      pickSeat.addEventListener('change', () => (st.voteFor = Number(pickSeat.value)));
      const form = h(
        'form',
        {},
        h('label', { for: 'vote-for' }, t('voteFor')),
        ' ',
        pickSeat,
        ' ',
        h('button', { type: 'submit', class: 'primary', disabled: st.busy }, t('vote')),
      );
      form.addEventListener('submit', (e) => {
        e.preventDefault();
        voted = true;
        void act(() => api.vote(season, key, Number(pickSeat.value)), t('voted'));
      });
      kurultay.replaceChildren(h('h2', { id: 'kurultay-h' }, t('voteTitle')), form);
    }

    function renderOrders(): void {
      // no Divan left: the panel says so, and there is no order set to show or send
      orders.hidden = st.me !== null && st.me.next_divan === null;
      if (orders.hidden) {
        orders.replaceChildren();
        return;
      }
      const mine = own();
      const { given, of } = orderCount(st.draft, mine);
      const items = st.draft
        .filter((o) => mine.includes(o.province))
        .map((o) =>
          h(
            'li',
            { class: st.refusal?.province === o.province ? 'refused' : '', 'data-province': o.province },
            orderText(o),
            ' ',
            h(
              'button',
              {
                type: 'button',
                class: 'quiet',
                'aria-label': t('removeOrder', { p: nameOf(o.province) }),
                onclick: () => {
                  st.draft = dropOrder(st.draft, o.province);
                  st.dirty = true;
                  render();
                },
              },
              t('remove'),
            ),
          ),
        );
      // editable until the lock (R-4.4): while locked nothing is sent, and it is said
      const locked = st.status?.locked === true;
      const canAct = seat !== null && st.me !== null && st.me.next_divan !== null && !st.busy && !locked;
      const send = h('button', { type: 'button', id: 'send', disabled: !canAct || !st.dirty, onclick: () => void sendOrders() }, t('send'));
      const hold =
        st.status?.mode === 'trial' && seat !== null
          ? h('button', { type: 'button', id: 'hold-divan', class: 'primary', disabled: !canAct, onclick: () => void holdDivan() }, st.busy ? t('resolving') : t('holdDivan'))
          : null;
      const refusal = st.refusal
        ? h(
            'div',
            { class: 'error', role: 'alert' },
            h('strong', {}, t('refused')),
            st.refusal.province !== null ? h('p', {}, t('refusedOrder', { p: nameOf(st.refusal.province) })) : null,
            h('p', {}, st.refusal.text),
            st.refusal.members ? h('p', { class: 'small members' }, st.refusal.members) : null,
          )
        : null;
      const parts: (HTMLElement | null)[] = [
        h('h2', { id: 'orders-h' }, t('orderSet'), ' ', h('span', { class: 'count', id: 'order-count' }, t('orderCount', { n: given, m: of }))),
        h('ul', { class: 'set' }, ...items),
        locked && seat !== null ? h('p', { class: 'note', id: 'locked-note' }, t('lockedNote')) : null,
        st.dirty ? h('p', { class: 'note' }, t('unsent')) : st.sentNote ? h('p', { class: 'note ok' }, st.sentNote) : null,
        refusal,
        h('div', { class: 'actions' }, send, ' ', hold),
      ];
      orders.replaceChildren(...parts.filter((x): x is HTMLElement => x !== null));
    }

    function renderList(): void {
      const mine = own();
      const rows = mine.map((p) => {
        const units = st.map?.provinces[String(p)]?.units ?? 0;
        const order = st.draft.find((o) => o.province === p);
        return h(
          'tr',
          { 'data-plate': p },
          // below 600 px the units and the order go under the province (style.css), not in
          // columns of their own: with the button the row was wider than a phone's list card
          // ("Give an order" half outside it, behind a sideways scroll)
          h('th', { scope: 'row' }, `${p} ${nameOf(p)}`, h('span', { class: 'sub' }, `${t('unitsN', { n: units })} · ${order ? orderText(order) : t('hold')}`)),
          h('td', { class: 'wide' }, String(units)),
          h('td', { class: 'wide' }, order ? orderText(order) : t('hold')),
          h('td', {}, h('button', { type: 'button', 'aria-label': t('giveOrderFor', { p: nameOf(p) }), onclick: () => pick(p) }, t('giveOrder'))),
        );
      });
      list.replaceChildren(
        h('h2', { id: 'list-h' }, t('list')),
        h(
          'table',
          {},
          h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('provinces')), h('th', { scope: 'col', class: 'wide' }, t('units')), h('th', { scope: 'col', class: 'wide' }, t('orders')), h('th', { scope: 'col' }, ''))),
          h('tbody', {}, ...rows),
        ),
      );
    }

    function renderReport(): void {
      const divans = st.reports.filter((r) => r.kind === 'divan' && r.divan !== null).map((r) => r.divan as number);
      const children: (HTMLElement | null)[] = [h('h2', { id: 'report-h' }, t('report'))];
      if (divans.length === 0) {
        // before Divan 1 the season admin's acts (a postponement, a cancellation) are the news
        children.push(h('p', {}, t('noReport')), ...announcements());
        report.replaceChildren(...children.filter((c): c is HTMLElement => c !== null));
        return;
      }
      const shown = st.shown ?? divans[divans.length - 1] ?? null;
      const pickDivan = h('select', { id: 'divan-pick' }) as HTMLSelectElement;
      for (const d of divans) pickDivan.append(h('option', { value: d, selected: d === shown }, `${t('divan')} ${d}`));
      pickDivan.addEventListener('change', () => {
        st.shown = Number(pickDivan.value);
        void loadBattles(st.shown).then(render);
      });
      children.push(h('p', {}, h('label', { for: 'divan-pick' }, t('pastDivans')), ' ', pickDivan));
      const pub = st.reports.find((r) => r.kind === 'divan' && r.divan === shown);
      const priv = st.me?.reports?.find((r) => r.divan === shown);
      children.push(
        newsCardEl(newsCard(pub?.lines ?? [], st.board.news), st.board, st.reports, nameOf, beyName),
        h('h3', {}, t('publicLines')),
        h('ul', { class: 'lines public' }, ...(pub?.lines ?? []).filter((l) => l.kind !== 'orders_sealed').map((l) => lineItem(l))),
      );
      if (priv) {
        children.push(h('h3', {}, t('privateLines')), h('ul', { class: 'lines private' }, ...priv.lines.map((l) => sealItem(l) ?? lineItem(l))));
      }
      if (token && shown !== null) {
        const battles = st.battles.get(shown) ?? [];
        children.push(
          h('h3', {}, t('battles')),
          battles.length === 0
            ? h('p', {}, t('noBattles'))
            : h(
                'ul',
                { class: 'battles' },
                ...battles.map((b) => battleItem(b, nameOf, beyName)),
              ),
        );
      }
      children.push(...announcements());
      const kr = st.reports.find((r) => r.kind === 'kurultay');
      if (kr) children.push(h('h3', {}, t('kurultayReport')), h('ul', { class: 'lines kurultay' }, ...kr.lines.map((l) => lineItem(l))));
      children.push(h('h3', {}, t('leaderboard')), leaderboardTable(), titlesList());
      report.replaceChildren(...children.filter((c): c is HTMLElement => c !== null));
    }

    /** The season admin's acts and ops' corrections (their reasons are people's own words). */
    function announcements(): HTMLElement[] {
      const notes = st.reports.filter((r) => r.kind === 'season_admin' || r.kind === 'correction').flatMap((r) => r.lines);
      return notes.length ? [h('h3', {}, t('announcements')), h('ul', { class: 'lines announcements' }, ...notes.map((l) => lineItem(l)))] : [];
    }

    function leaderboardTable(): HTMLElement {
      return h(
        'table',
        { class: 'leaderboard' },
        h('thead', {}, h('tr', {}, h('th', { scope: 'col', class: 'num' }, '#'), h('th', { scope: 'col' }, t('seat')), h('th', { scope: 'col', class: 'memleket' }, t('memleket')), h('th', { scope: 'col', class: 'num' }, t('score')), h('th', { scope: 'col', class: 'num' }, t('provinces')))),
        h(
          'tbody',
          {},
          ...st.leaderboard.map((b, i) =>
            h(
              'tr',
              { class: b.seat === seat ? 'me' : '' },
              h('td', { class: 'num' }, String(i + 1)),
              h(
                'td',
                { class: 'who' },
                beyName(b.seat),
                b.seat === seat ? ` (${t('you')})` : '',
                b.computer ? ` · ${t('computer')}` : '',
                b.hain_through ? h('span', { class: 'badge hain' }, t('hain')) : null,
                b.han ? h('span', { class: 'badge' }, t('han')) : null,
                b.surgun ? h('span', { class: 'badge' }, t('surgun')) : null,
                h('span', { class: 'sub' }, nameOf(b.memleket)),
              ),
              h('td', { class: 'memleket' }, nameOf(b.memleket)),
              h('td', { class: 'num' }, String(b.score)),
              h('td', { class: 'num' }, String(b.provinces)),
            ),
          ),
        ),
      );
    }

    function titlesList(): HTMLElement {
      const ti = st.titles;
      const items: HTMLElement[] = [];
      if (ti) {
        for (const [region, r] of Object.entries(ti.regions)) {
          items.push(h('li', {}, t('regionTitle', { r: region, title: titleName(r.title), b: beyName(r.seat) })));
        }
        for (const n of ti.hain) items.push(h('li', {}, `${t('hain')}: ${beyName(n)}`));
        for (const n of ti.surgun) items.push(h('li', {}, `${t('surgun')}: ${beyName(n)}`));
        if (ti.han !== null) items.push(h('li', {}, `${t('han')}: ${beyName(ti.han)}`));
      }
      return h('div', { class: 'titles' }, h('h3', {}, t('titles')), items.length ? h('ul', {}, ...items) : h('p', {}, t('noTitles')));
    }

    function legend(): HTMLElement {
      return h(
        'details',
        { class: 'legend' },
        h('summary', {}, t('legend')),
        h('ul', {}, ...(['legendMine', 'legendSeat', 'legendMilis', 'legendMemleket', 'legendSur', 'legendTitle', 'legendBattle', 'legendNews'] as Key[]).map((k) => h('li', {}, t(k)))),
      );
    }

    function renderClock(): void {
      const s = st.status;
      if (!s || s.mode !== 'live' || !s.calendar) {
        clock.hidden = true;
        return;
      }
      clock.hidden = false;
      const cal = s.calendar;
      const when = (what: string, at: string) => {
        const b = bothTimes(at, lang());
        return h('li', {}, t('whenLine', { what, local: b.local, ist: b.istanbul }));
      };
      const now = h('p', { id: 'countdown', class: 'countdown', role: 'timer', 'aria-live': 'off' });
      clock.replaceChildren(
        h('h2', { id: 'clock-h' }, s.phase === 'registration' && !s.cancelled ? t('registrationOpen') : t('calendar')),
        now,
        h(
          'details',
          {},
          h('summary', {}, `${t('calendar')} ${cal.provisional ? t('provisional') : ''}`),
          h(
            'ul',
            {},
            when(t('registrationCloses'), cal.registration_closes_at),
            ...cal.divans.map((d) => when(`${t('divan')} ${d.divan}`, d.at)),
            when(t('kurultayCloses'), cal.kurultay_closes_at),
          ),
        ),
      );
      tick();
    }

    // When a countdown reaches its instant, the season is read again: soon, then less often
    // (the scheduler records the instant a moment later), never in a tight loop.
    let dueWait = 2;
    let dueTimer: ReturnType<typeof setTimeout> | null = null;
    function due(): void {
      if (dueTimer || gone) return;
      dueTimer = setTimeout(() => {
        dueTimer = null;
        dueWait = Math.min(30, dueWait * 2);
        void refresh().catch(() => undefined);
      }, dueWait * 1000);
    }

    function tick(): void {
      const el = clock.querySelector('#countdown');
      const s = st.status;
      if (!el || !s || s.mode !== 'live') return;
      if (s.cancelled) {
        // a cancelled season takes no command and keeps no instant: nothing to count down to
        el.textContent = t('seasonCancelled');
        return;
      }
      if (s.paused) {
        el.textContent = t('paused');
        return;
      }
      if (s.phase === 'registration' && s.calendar) {
        const left = Math.max(0, (Date.parse(s.calendar.registration_closes_at) - Date.now()) / 1000);
        el.textContent = t('registration', { t: countdown(left, lang()) });
        if (left === 0) due();
        else if (saved && Date.now() - readAt > REGISTRATION_READ_MS && !st.busy) {
          readAt = Date.now(); // one read at a time
          void refresh().catch(() => undefined);
        }
        return;
      }
      if (s.phase === 'kurultay' && s.calendar) {
        const left = Math.max(0, Math.ceil((Date.parse(s.calendar.kurultay_closes_at) - Date.now()) / 1000));
        el.textContent = t('kurultayIn', { t: countdown(left, lang()) });
        if (left === 0) due();
        return;
      }
      if (s.locked) {
        el.textContent = t('locked');
        el.classList.add('late');
        due();
        return;
      }
      if (lockAt === null) {
        el.textContent = s.phase === 'over' ? t('seasonOver') : '';
        return;
      }
      const left = Math.max(0, Math.ceil((lockAt - Date.now()) / 1000));
      el.textContent = t('countdown', { t: countdown(left, lang()) });
      if (left === 0) due();
      else dueWait = 2;
      el.classList.toggle('late', lastQuarter(left, periodS));
    }

    function renderJoin(): void {
      const s = st.status;
      if (saved || !s || s.mode !== 'live' || s.phase !== 'registration' || s.cancelled) {
        joinBox.hidden = true;
        return;
      }
      joinBox.hidden = false;
      // the memleket still free (the map's owners and memleket marks); a join racing another
      // can still be told 409 memleket_taken, with the free neighbours
      const free = freeMemleket(st.map?.provinces ?? null, st.board.provinces.map((p) => p.plate));
      const select = h('select', { id: 'join-memleket' }) as HTMLSelectElement;
      for (const p of free) select.append(h('option', { value: p, selected: p === st.joinPick }, `${p} ${nameOf(p)}`));
      select.addEventListener('change', () => (st.joinPick = Number(select.value)));
      map.highlight(st.joinPick, []);
      const error = h('div', { class: 'error', role: 'alert' });
      const joinName = nameField('join-name');
      const form = h(
        'form',
        {},
        h('p', { class: 'small', id: 'free-count' }, t('freeCount', { n: free.length })),
        h('label', { for: 'join-memleket' }, t('memleket')),
        ' ',
        select,
        h('p', {}, joinName.label, ' ', joinName.input, ' ', joinName.hint),
        h('button', { type: 'submit', class: 'primary' }, t('join')),
        error,
      );
      form.addEventListener('submit', (e) => {
        e.preventDefault();
        const memleket = Number(select.value);
        api
          .join(season, memleket, joinName.input.value.trim() || null, loadPlayer(localStorage)?.key ?? null)
          .then((joined) => {
            saveSeason(localStorage, { season, seat: joined.seat, memleket, token: joined.token, mode: 'live', saved: Date.now() });
            sessionStorage.setItem('seksenbir.fresh', season);
            window.dispatchEvent(new HashChangeEvent('hashchange')); // this screen again, as the bey
          })
          .catch((err: unknown) => {
            error.replaceChildren(h('p', {}, problemText(err)));
            // taken meanwhile: no longer offered
            if (err instanceof ApiProblem && err.code === 'memleket_taken') {
              select.querySelector(`option[value="${memleket}"]`)?.remove();
              st.joinPick = null;
            }
            if (err instanceof ApiProblem && Array.isArray(err.members.free_neighbours)) {
              const free = (err.members.free_neighbours as number[]).map((p) => `${p} ${nameOf(p)}`).join(', ');
              error.append(h('p', {}, t('freeNeighbours', { list: free })));
            }
          });
      });
      joinBox.replaceChildren(h('h2', { id: 'join-h' }, t('joinTitle')), form);
    }

    /** The titled beys' marks (R-10.2) and where the shown Divan's news card fell (R-8). */
    function renderMapMarks(): void {
      const memleketOf = new Map(st.leaderboard.map((b) => [b.seat, b.memleket]));
      map.titles(
        titleMarks(st.titles, memleketOf).map((m) => ({
          seat: m.seat,
          plate: m.plate,
          glyph: markGlyph(m),
          text: [beyName(m.seat), ...m.regions.map((r) => `${titleName(r.title)} (${r.region})`), m.han ? t('han') : ''].filter(Boolean).join(' · '),
        })),
      );
      const shown = st.shown ?? lastDivan();
      const pub = st.reports.find((r) => r.kind === 'divan' && r.divan === shown);
      map.news(newsPlates(newsCard(pub?.lines ?? [], st.board.news), st.board.regions));
    }

    // A render draws the cards' contents anew: the element holding the focus is replaced, and a
    // keyboard's focus fell to the page (an arrow on the order kind, a Tab after the units, an
    // order made, an offer answered). The focus goes to the same control drawn again (logic/
    // focus.ts: by its id, else its kind and words), or, where none is left or it is disabled
    // for now (a command under way), to its card, and to the control again once it is back.
    let focusWanted: { key: FocusKey; card: HTMLElement } | null = null;
    function render(): void {
      if (gone) return;
      const active = document.activeElement;
      const card = active instanceof HTMLElement ? active.closest<HTMLElement>('section.card') : null;
      if (active instanceof HTMLElement && card && active !== card && main.contains(active)) focusWanted = { key: focusKey(active), card };
      else if (active !== document.body && active !== focusWanted?.card) focusWanted = null;
      draw();
      const now = document.activeElement;
      if (!focusWanted || (now !== document.body && now !== focusWanted.card && now?.isConnected)) return;
      const { card: home, key } = focusWanted;
      const again = findFocus(home, key);
      if (again && !('disabled' in again && again.disabled)) {
        again.focus({ preventScroll: true });
        focusWanted = null;
        return;
      }
      if (now === document.body || !now?.isConnected) {
        if (!home.hasAttribute('tabindex')) home.setAttribute('tabindex', '-1');
        home.focus({ preventScroll: true });
      }
      if (!again) focusWanted = null; // gone for good (an order made, an offer answered)
    }

    function draw(): void {
      // watching a season not saved here: no order panel, set or list
      panel.hidden = orders.hidden = list.hidden = seat === null;
      renderInfo();
      renderClock();
      renderJoin();
      renderVisitor();
      admin?.render(st.status);
      if (st.map) {
        const hain = new Set(st.leaderboard.filter((b) => b.hain_through !== null).map((b) => b.seat));
        map.update(st.map.provinces, { seat, hain, beyName });
      }
      map.highlight(st.selected ?? (seat === null ? st.joinPick : null), targets());
      map.battles((st.battles.get(st.shown ?? lastDivan() ?? 0) ?? []).map((b) => b.target));
      renderMapMarks();
      renderPanel();
      renderOrders();
      renderList();
      renderDiplomacy();
      renderChat();
      renderMissions();
      renderKurultay();
      renderReport();
    }

    async function loadBattles(divan: number | null): Promise<void> {
      if (!token || divan === null || st.battles.has(divan)) return;
      try {
        st.battles.set(divan, (await api.battles(season, token, divan)).battles);
      } catch {
        /* not there yet: the next refresh asks again */
      }
    }

    let wake: (() => void) | null = null;

    /** Every read; with `divan`, until each shows that Divan resolved (the read side trails
     * the write side a little: poll with a deadline, never forever). */
    async function refresh(divan: number | null = null, version: number | null = null): Promise<void> {
      const deadline = Date.now() + 30_000;
      // the read side still behind after a moment: the player is told it is awaited, not left
      // before a screen that does not change (taken back once the reads answer)
      const lag = catchingUp(
        () => notice(t('catchingUp'), 'info', CATCHING_UP),
        () => clearNotice(CATCHING_UP, t('catchingUp')),
      );
      try {
        await readAll(deadline, () => lag.behind(), divan, version);
      } finally {
        lag.done();
      }
    }

    async function readAll(deadline: number, behind: () => void, divan: number | null, version: number | null): Promise<void> {
      // the next look: when the stream says something happened, or after a wait that starts
      // short and doubles up to 300 ms (a trial Divan is resolved and projected in tens of
      // milliseconds; bench-web: Divan to report on screen)
      let wait = 40;
      const pause = async (): Promise<void> => {
        await Promise.race([sleep(wait), new Promise<void>((r) => (wake = r))]);
        wake = null;
        wait = Math.min(wait * 2, 300);
      };
      for (;;) {
        // the command side knows the season at once (a 404 here is a season that does not
        // exist); its read side a moment later (issue 20): until then a read is retried
        const status = await api.status(season);
        if (divan !== null && status.divan < divan && Date.now() < deadline) {
          await pause(); // not resolved yet: the four reads would only be asked again
          continue;
        }
        // each read asked at the version waited for: it answers once its read side has it
        // (a command's, or what a stream message announced), not a moment before
        const at = askAt(version, status.version);
        let reads;
        try {
          reads = await Promise.all([
            api.map(season, at),
            token ? ownView(token, status.version, at) : Promise.resolve(null),
            api.reports(season, at),
            api.leaderboard(season, at),
            api.titles(season, at),
          ]);
        } catch (e) {
          if (notYet(e) && Date.now() < deadline) {
            behind();
            await pause();
            continue;
          }
          throw e;
        }
        const [m, me, reports, lb, titles] = reads;
        const caught = caughtUp({ status, map: m, me, reports, leaderboard: lb, titles }, at, divan);
        if (caught || Date.now() > deadline) {
          st.status = status;
          lockAt = typeof status.seconds_to_lock === 'number' && status.seconds_to_lock > 0 ? Date.now() + status.seconds_to_lock * 1000 : null;
          periodS = lockPeriod(status);
          st.map = m;
          // a picked province lost meanwhile is no longer offered orders or spending
          if (st.selected !== null && m.provinces[String(st.selected)]?.owner !== seat) st.selected = null;
          if (me) {
            const fresh = !st.me || st.me.next_divan !== me.next_divan;
            st.me = me;
            if (fresh) st.sentNote = '';
            if (fresh && !st.dirty) {
              st.draft = me.orders.divan === me.next_divan ? me.orders.orders.map((o) => ({ province: o.province, kind: o.kind, target: o.target ?? null, units: o.units ?? 0 })) : [];
            }
          }
          st.reports = reports.reports;
          st.leaderboard = lb.leaderboard;
          readAt = Date.now();
          st.titles = titles;
          if (divan !== null) st.shown = divan;
          await loadBattles(st.shown ?? lastDivan());
          render();
          return;
        }
        behind(); // a read behind the command's version or the Divan's report
        await pause();
      }
    }

    /** Seconds between the lock before the next one (or the registration close) and it. */
    function lockPeriod(s: Status): number {
      const cal = s.calendar;
      if (!cal || !s.next_divan_at) return 0;
      const next = Date.parse(s.next_divan_at);
      const before = [Date.parse(cal.registration_closes_at), ...cal.divans.map((d) => Date.parse(d.at))].filter((x) => x < next);
      return before.length ? (next - Math.max(...before)) / 1000 : 0;
    }

    function lastDivan(): number | null {
      const ds = st.reports.filter((r) => r.kind === 'divan').map((r) => r.divan ?? 0);
      return ds.length ? Math.max(...ds) : null;
    }

    async function sendOrders(): Promise<boolean> {
      if (!token || !st.me) return false;
      const body = toRequest(st.draft, own());
      st.busy = true;
      render();
      try {
        const out = (await api.sendOrders(season, token, body, st.me.next_divan)) as { divan?: number };
        st.dirty = false;
        st.refusal = null;
        st.sentNote = t('sent', { n: out.divan ?? st.me.next_divan ?? '' });
        return true;
      } catch (e) {
        st.refusal =
          e instanceof ApiProblem
            ? { province: faultyProvince(e.members, body), text: problemText(e), members: membersText(e.members, ['province'], lang()) }
            : { province: null, text: t('offline'), members: '' };
        return false;
      } finally {
        st.busy = false;
        render();
      }
    }

    async function holdDivan(): Promise<void> {
      if (!token || !st.me || st.me.next_divan === null) return;
      if (st.dirty && !(await sendOrders())) return;
      const n = st.me.next_divan;
      st.busy = true;
      render();
      try {
        await api.holdDivan(season, token, n);
        await refresh(n);
      } catch (e) {
        notice(problemText(e), 'error');
      } finally {
        st.busy = false;
        render();
      }
    }

    ticker = setInterval(tick, 1000);
    onGone.push(() => dueTimer && clearTimeout(dueTimer));
    void refresh()
      .then(() => {
        if (gone) return;
        stream = new SeasonStream(
          season,
          token,
          st.map?.version ?? null,
          (event, data, id) => {
            // what a message announces is read again at the version its id names (logic/refresh.ts
            // `announced`): an offer made to this bey, or withdrawn (R-6.1), so it can be answered
            // before the Divan that settles it; a report, until it shows that Divan resolved
            const asks = announced(event, data, id);
            if (asks && asks.divan === null && !st.busy) void refresh(null, asks.version).catch(() => undefined);
            // what became of an offer this bey made (accepted, rejected; withdrawn on any of its
            // devices): said on the status line at once, before the Divan that settles it
            if (event === 'offer_answered') {
              const said = offerAnsweredText(data, beyName, lang());
              if (said) notice(said);
            }
            if (event === 'chat_message') chat?.poke(); // ADR-94: the chat reads its channels again
            if (event === 'divan_report' || event === 'private_report' || event === 'kurultay_report' || event === 'season_over') {
              wake?.(); // a refresh waiting for this Divan looks now
              if (asks && !st.busy) void refresh(asks.divan, asks.version).catch(() => undefined);
            }
          },
          (up) => (streamState.textContent = `${t('live_stream')}: ${up ? t('streamOn') : t('streamOff')}`),
        );
      })
      .catch((e: unknown) => main.replaceChildren(h('p', { class: 'error', role: 'alert' }, problemText(e))));
  }

  return () => {
    gone = true;
    stream?.close();
    if (ticker) clearInterval(ticker);
    for (const f of onGone) f();
  };
}
