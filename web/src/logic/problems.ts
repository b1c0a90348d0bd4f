// A refusal (problem+json) said to the player, in the client's language: one place for every
// form (home's trial, live season, player and key cards, the join, the admin card, chat). The
// server's `detail` is for people but names a body's field by its JSON path (`$.name: …`,
// D-27); the player never sees such a path: a code the client knows is said in its own words,
// with the field's label; any other detail is shown with its paths named in words. The stable
// code stays beside it, in parentheses, for a report to ops.
import { bothTimes } from './format';

export type Lang = 'tr' | 'en';

export interface Refusal {
  code: string;
  detail: string;
  members: Record<string, unknown>;
}

type Pair = readonly [string, string];

// a body field by its last name in the path (`$.orders[0].units` → units)
const FIELDS: Record<string, Pair> = {
  name: ['Ad', 'Name'],
  memleket: ['Memleket', 'Memleket'],
  registration_closes_at: ['Kayıt kapanışı', 'Registration close'],
  press: ['Sohbet', 'Chat'],
  description: ['Açıklama', 'Description'],
  reason: ['Gerekçe', 'Reason'],
  text: ['Mesaj', 'Message'],
  player_key: ['Oyuncu anahtarı', 'Player key'],
  orders: ['Emirler', 'Orders'],
  units: ['Birlik', 'Units'],
  province: ['İl', 'Province'],
  target: ['Hedef', 'Target'],
  kind: ['Ne', 'What'],
  to: ['Kime', 'To'],
  candidate: ['Aday', 'Candidate'],
  divan: ['Divan', 'Divan'],
};

// the codes home's forms and the join meet, in the client's words (R-15.5, docs/api.md)
const CODES: Record<string, Pair> = {
  invalid_name: [
    "bu ad olmaz: 2–24 harf, rakam, boşluk ya da . - _ ' (en az bir harf; boşlukla başlamaz, bitmez, iki boşluk yan yana gelmez)",
    "not a valid name: 2–24 letters, digits, spaces or . - _ ' (at least one letter; no space at either end, never two in a row)",
  ],
  name_reserved: [
    'bu ad ayrılmış (koltuk adları, Han, Hain ve öbür unvanlar, sistem, bilgisayar beylerinin adları ve onlara benzeyenler): başka bir ad seç',
    'this name is reserved (seat forms, Han, Hain and the other titles, system, computer beys’ names and their lookalikes): choose another',
  ],
  name_taken: [
    'bu sezonda bu ad ya da ona benzeyen bir ad başka bir beyin: başka bir ad seç',
    'another bey of this season has this name or one that looks like it: choose another',
  ],
};

// the live close's refusals name an instant (RFC 3339, +03:00): said in the player's locale and
// in Istanbul's time, as the calendar is (R-1.4: the Divans are at 21:00 Istanbul)
const INSTANTS: Record<string, { member: string; text: Pair }> = {
  registration_too_soon: {
    member: 'earliest',
    text: ['Kayıt en erken {local} (İstanbul: {ist}) kapanabilir', 'Registration can close at {local} (Istanbul: {ist}) at the earliest'],
  },
  invalid_instant: {
    member: 'latest',
    text: ['Kayıt en geç {local} (İstanbul: {ist}) kapanabilir', 'Registration can close at {local} (Istanbul: {ist}) at the latest'],
  },
  not_later: {
    member: 'registration_closes_at',
    text: ['Kaydın yeni kapanışı {local} (İstanbul: {ist}) sonrasında olmalı', 'The new close must be later than {local} (Istanbul: {ist})'],
  },
};

function instantText(p: Refusal, lang: Lang): string | null {
  const known = INSTANTS[p.code];
  const at = known ? p.members[known.member] : undefined;
  if (!known || typeof at !== 'string' || Number.isNaN(Date.parse(at))) return null;
  const { local, istanbul } = bothTimes(at, lang);
  const said = pick(known.text, lang).replace('{local}', local).replace('{ist}', istanbul);
  return `${said} (${p.code})`;
}

const pick = (p: Pair, lang: Lang) => p[lang === 'tr' ? 0 : 1];

/** A field's label from its JSON path (`$.name` → "Ad"); an unknown one by its last name. */
export function fieldLabel(path: string, lang: Lang): string {
  const last = /([A-Za-z_]\w*)(?:\[\d+\])*$/.exec(path)?.[1];
  if (!last) return lang === 'tr' ? 'İstek' : 'The request';
  const known = FIELDS[last];
  return known ? pick(known, lang) : last;
}

// a list's item said by its place, counted from 1: `$.orders[0]` is the first order
const ITEMS: Record<string, Pair> = { orders: ['{n}. emir', 'order {n}'], offers: ['{n}. teklif', 'offer {n}'] };

/** Where a JSON path points, in words: `$.orders[0].units` → "1. emir, Birlik" / "order 1,
 * Units"; `$.name` → "Ad". */
export function fieldPlace(path: string, lang: Lang): string {
  const places: string[] = [];
  for (const m of path.matchAll(/\.([A-Za-z_]\w*)((?:\[\d+\])*)/g)) {
    const name = m[1] ?? '';
    const index = /\[(\d+)\]$/.exec(m[2] ?? '')?.[1];
    const item = ITEMS[name];
    if (index !== undefined && item) places.push(pick(item, lang).replace('{n}', String(Number(index) + 1)));
    else places.push(fieldLabel(`$.${name}${m[2] ?? ''}`, lang));
  }
  return places.length ? places.join(', ') : fieldLabel(path, lang);
}

// a problem's members the refusal box names, in words (the others keep their stable names)
const MEMBERS: Record<string, Pair> = {
  field: ['yer', 'where'],
  maximum: ['en fazla', 'at most'],
  minimum: ['en az', 'at least'],
  limit: ['sınır', 'limit'],
  cost: ['bedel', 'cost'],
  divan: ['Divan', 'Divan'],
};

/** A problem's extra members as "name: value" in words (the refusal box shows them beside the
 * message); the field by its place, never its JSON path; those in `omit`, objects and empty
 * values left out. */
export function membersText(members: Record<string, unknown>, omit: readonly string[] = [], lang: Lang = 'tr'): string {
  return Object.entries(members)
    .filter(([k, v]) => !omit.includes(k) && v !== null && v !== undefined && (typeof v !== 'object' || Array.isArray(v)))
    .map(([k, v]) => {
      const name = MEMBERS[k] ? pick(MEMBERS[k], lang) : k;
      const value = k === 'field' && typeof v === 'string' ? fieldPlace(v, lang) : Array.isArray(v) ? v.join(', ') : String(v);
      return `${name}: ${value}`;
    })
    .join(' · ');
}

const PATH = /\$(?:\.[A-Za-z_]\w*|\[\d+\])+/g;

/** What the player reads for a refusal: never a JSON path; the code beside it. */
export function problemMessage(p: Refusal, lang: Lang): string {
  const field = typeof p.members.field === 'string' ? p.members.field : null;
  const instant = instantText(p, lang);
  if (instant !== null) return instant;
  const own = CODES[p.code];
  if (own) return `${field ? `${fieldLabel(field, lang)}: ` : ''}${pick(own, lang)} (${p.code})`;
  const said = (p.detail || p.code).replace(PATH, (path) => fieldLabel(path, lang));
  return `${said} (${p.code})`;
}
