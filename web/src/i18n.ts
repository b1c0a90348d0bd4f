// The client's own words, Turkish first and English on the switch. The server's texts (problem
// details, report lines) come in the language asked for by Accept-Language. The game's own
// words (Divan, Hain, Han, Sürgün, Kurultay, memleket, bey) stay as they are in both.

export type Lang = 'tr' | 'en';

const TEXTS = {
  app: ['Seksenbir', 'Seksenbir'],
  tagline: ['81 il, 19 bey, bir Han.', '81 provinces, 19 beys, one Han.'],
  language: ['Dil', 'Language'],
  switchLang: ['English', 'Türkçe'],
  switchLangLabel: ['Switch to English', 'Türkçe’ye geç'],
  home: ['Ana sayfa', 'Home'],
  newTrial: ['Deneme sezonu başlat', 'Start a trial season'],
  pickMemleket: [
    'Memleketini seç: haritada bir ile dokun ya da listeden seç.',
    'Pick your memleket: tap a province on the map or choose it from the list.',
  ],
  memleket: ['Memleket', 'Memleket'],
  start: ['Başlat', 'Start'],
  yourSeasons: ['Sezonların', 'Your seasons'],
  noSeasons: ['Bu cihazda kayıtlı sezon yok.', 'No season is saved on this device.'],
  open: ['Aç', 'Open'],
  forget: ['Bu cihazdan sil', 'Forget on this device'],
  openByLink: ['Bağlantıyla sezon aç', 'Open a season by its link'],
  seasonLink: ['Sezon bağlantısı ya da kimliği', 'Season link or id'],
  privacy: [
    'Hesap yok, hakkında hiçbir şey saklanmıyor: sezon anahtarın (token) yalnızca bu cihazda durur.',
    'No account, nothing about you is stored: your season key (token) stays on this device only.',
  ],
  season: ['Sezon', 'Season'],
  trial: ['deneme', 'trial'],
  live: ['canlı', 'live'],
  divan: ['Divan', 'Divan'],
  gold: ['Altın', 'Gold'],
  seat: ['Koltuk', 'Seat'],
  bey: ['{n}. bey', 'Bey {n}'],
  you: ['sen', 'you'],
  map: ['Harita', 'Map'],
  list: ['Liste', 'List'],
  mapLabel: ['Türkiye haritası: 81 il', 'Map of Turkey: 81 provinces'],
  zoomIn: ['Yakınlaştır', 'Zoom in'],
  zoomOut: ['Uzaklaştır', 'Zoom out'],
  zoomReset: ['Haritayı sığdır', 'Fit the map'],
  units: ['Birlik', 'Units'],
  milis: ['milis', 'milis'],
  sur: ['sur', 'sur'],
  owner: ['Sahibi', 'Owner'],
  unowned: ['sahipsiz', 'unowned'],
  memleketOf: ['{n}. beyin memleketi', 'Bey {n}’s memleket'],
  advance: ['İlerle', 'Advance'],
  support: ['Destek', 'Support'],
  hold: ['Bekle', 'Hold'],
  orderFor: ['{p} için emir', 'Order for {p}'],
  giveOrder: ['Emir ver', 'Give an order'],
  giveOrderFor: ['Emir ver: {p}', 'Give an order: {p}'],
  howMany: ['Kaç birlik', 'How many units'],
  clampNote: [
    'Divan’da en fazla {max} birlik gider (ilde en az 1 birlik kalır).',
    'At the Divan at most {max} units go (at least 1 stays in the province).',
  ],
  cannotLeave: [
    'Bu ilde tek birlik var: yerinden ayrılamaz, yalnızca Bekle.',
    'This province has one unit: it cannot leave, only Hold.',
  ],
  chooseTarget: ['Hedef seç (yalnızca komşu iller):', 'Choose a target (neighbours only):'],
  targetAttack: ['saldırı', 'attack'],
  targetMove: ['kendi ilin: hareket', 'your own: move'],
  targetMilis: ['milise saldırı', 'attack on milis'],
  cancel: ['Vazgeç', 'Cancel'],
  orders: ['Emirler', 'Orders'],
  pickProvince: [
    'Haritada ya da listede illerinden birini seç.',
    'Pick one of your provinces on the map or in the list.',
  ],
  orderCount: ['{n} / {m} emir', '{n} of {m} ordered'],
  orderLine: ['{p}: {k} {u} birlik → {t}', '{p}: {k} {u} units → {t}'],
  holdLine: ['{p}: Bekle', '{p}: Hold'],
  remove: ['Kaldır', 'Remove'],
  removeOrder: ['{p} emrini kaldır', 'Remove the order for {p}'],
  send: ['Emirleri gönder', 'Send the orders'],
  sent: ['Emirler gönderildi: {n}. Divan için.', 'Orders sent: for Divan {n}.'],
  unsent: ['Gönderilmemiş değişiklik var.', 'There are unsent changes.'],
  refused: ['Emirler reddedildi', 'The orders were refused'],
  refusedOrder: ['Sorunlu emir: {p}', 'The order at fault: {p}'],
  holdDivan: ['Divanı topla', 'Hold the Divan'],
  resolving: ['Divan toplanıyor…', 'The Divan is meeting…'],
  report: ['Divan raporu', 'Divan report'],
  pastDivans: ['Geçmiş Divanlar', 'Past Divans'],
  showDivan: ['Gösterilen Divan', 'Divan shown'],
  publicLines: ['Herkese açık', 'Public'],
  privateLines: ['Yalnızca sana', 'Only for you'],
  battles: ['Savaşlar', 'Battles'],
  noBattles: ['Senin savaşın olmadı.', 'You had no battles.'],
  battleLine: [
    '{t}: savunan {d} ({du} birlik) — sonuç: {o}',
    '{t}: defender {d} ({du} units) — outcome: {o}',
  ],
  outcome_taken: ['alındı', 'taken'],
  outcome_held: ['tutuldu', 'held'],
  outcome_standoff: ['denge', 'standoff'],
  leaderboard: ['Sıralama', 'Leaderboard'],
  score: ['Puan', 'Score'],
  provinces: ['İl', 'Provinces'],
  computer: ['bilgisayar', 'computer'],
  hain: ['Hain', 'Hain'],
  hainThrough: ['Hain ({n}. Divan’a dek)', 'Hain (through Divan {n})'],
  han: ['Han', 'Han'],
  surgun: ['Sürgün', 'Sürgün'],
  missions: ['Görevler', 'Missions'],
  noReport: ['Henüz Divan toplanmadı.', 'No Divan has met yet.'],
  loading: ['Yükleniyor…', 'Loading…'],
  wait429: [
    'Sunucu şu an yoğun; {n} saniye sonra bir kez daha denenecek.',
    'The server is busy; one more try in {n} seconds.',
  ],
  busy: ['Sunucu yoğun. Biraz sonra yeniden dene.', 'The server is busy. Try again a little later.'],
  error: ['Bir şey ters gitti', 'Something went wrong'],
  offline: ['Sunucuya ulaşılamadı.', 'The server could not be reached.'],
  live_stream: ['Canlı bağlantı', 'Live connection'],
  streamOn: ['bağlı', 'connected'],
  streamOff: ['yeniden bağlanıyor…', 'reconnecting…'],
  countdown: ['Emirler {t} sonra kilitlenir', 'Orders lock in {t}'],
  locked: ['Emirler kilitli: Divan toplanıyor', 'Orders locked: the Divan is meeting'],
  seasonOver: ['Sezon bitti.', 'The season is over.'],
  notYours: ['Bu il senin değil.', 'This province is not yours.'],
  legend: ['Harita anahtarı', 'Map key'],
  legendMine: ['kalın çerçeve: senin illerin', 'thick outline: your provinces'],
  legendSeat: ['ildeki sayı: sahibinin koltuğu ve birlikleri (koltuk·birlik)', 'number in a province: its owner’s seat and units (seat·units)'],
  legendMilis: ['m: sahipsiz ilin milisi', 'm: an unowned province’s milis'],
  legendMemleket: ['★: bir beyin memleketi', '★: a bey’s memleket'],
  legendSur: ['▣: sur', '▣: sur'],
  legendBattle: ['kırmızı noktalı çerçeve: gösterilen Divan’daki savaşların', 'dotted red outline: your battles at the Divan shown'],
  credit: ['Harita: Natural Earth (kamu malı).', 'Map: Natural Earth (public domain).'],
  notFound: ['Bu sezon bu cihazda kayıtlı değil: yalnızca izleyebilirsin.', 'This season is not saved on this device: you can only watch.'],
  watch: ['İzle', 'Watch'],
  spending: ['Harcama', 'Spending'],
  spendSur: ['Sur yap ({c} altın)', 'Build a sur ({c} gold)'],
  spendHire: ['Paralı asker: +2 birlik ({c} altın)', 'Paralı asker: +2 units ({c} gold)'],
  spendBuy: ['Satın al: {p} ({c} altın)', 'Buy: {p} ({c} gold)'],
  spent: ['Harcandı.', 'Spent.'],
  diplomacy: ['Antlaşmalar', 'Treaties'],
  treatyLine: ['{k}: {b} ({n}. Divan’a dek)', '{k}: {b} (through Divan {n})'],
  pact: ['Saldırmazlık', 'Pact'],
  alliance: ['İttifak', 'Alliance'],
  offersIn: ['Sana gelen teklifler', 'Offers to you'],
  offerIn: ['{b}: {k} teklifi', '{b} offers a {k}'],
  offersOut: ['Senin tekliflerin', 'Your offers'],
  offerOut: ['{b}: {k} teklif ettin', 'You offered {b} a {k}'],
  accept: ['Kabul et', 'Accept'],
  reject: ['Reddet', 'Reject'],
  answered_accept: ['kabul ettin', 'you accepted'],
  answered_reject: ['reddettin', 'you rejected'],
  makeOffer: ['Teklif et', 'Make an offer'],
  offerTo: ['Kime', 'To'],
  offerKind: ['Ne', 'What'],
  noTreaties: ['Yürürlükte antlaşman yok.', 'You have no treaty in force.'],
  kurultay: ['Kurultay', 'Kurultay'],
  voteTitle: ['Kurultay: oyunu ver', 'Kurultay: cast your vote'],
  voteFor: ['Halk Sevgisi için bir bey seç', 'Choose a bey for Halk Sevgisi'],
  vote: ['Oy ver', 'Vote'],
  voted: ['Oyun verildi.', 'Your vote is cast.'],
  titles: ['Unvanlar', 'Titles'],
  announcements: ['Duyurular', 'Announcements'],
  regionTitle: ['{r}: {title} — {b}', '{r}: {title} — {b}'],
  noTitles: ['Henüz unvan yok.', 'No titles yet.'],
  kurultayIn: ['Kurultay {t} sonra kapanır', 'The Kurultay closes in {t}'],
  kurultayReport: ['Kurultay raporu', 'Kurultay report'],
  calendar: ['Takvim', 'Calendar'],
  registration: ['Kayıt {t} kapanır', 'Registration closes in {t}'],
  registrationOpen: ['Kayıt açık', 'Registration is open'],
  provisional: ['(geçici: kayıt kapanınca kesinleşir)', '(provisional until registration closes)'],
  whenLine: ['{what}: {local} (İstanbul: {ist})', '{what}: {local} (Istanbul: {ist})'],
  registrationCloses: ['Kayıt kapanışı', 'Registration closes'],
  kurultayCloses: ['Kurultay kapanışı', 'Kurultay closes'],
  join: ['Katıl', 'Join'],
  // issue 23: names and the lobby
  yourName: ['Adın (isteğe bağlı)', 'Your name (optional)'],
  nameHint: ["2–24 harf, rakam, boşluk ya da . - _ '", "2–24 letters, digits, spaces or . - _ '"],
  lobby: ['Lobi: kayıtları açık sezonlar', 'Lobby: seasons open for registration'],
  lobbyEmpty: ['Şu an kayıtları açık, listelenmiş sezon yok.', 'No listed season is open for registration now.'],
  freeSeats: ['{n} boş koltuk', '{n} free seats'],
  closesAt: ['Kayıt kapanışı', 'Registration closes'],
  firstDivanAt: ['İlk Divan', 'First Divan'],
  moreSeasons: ['Daha fazla', 'More'],
  joinTitle: ['Bu sezona katıl', 'Join this season'],
  freeNeighbours: ['Boş komşu memleketler: {list}', 'Free neighbouring memleket: {list}'],
  paused: ['Sezon duraklatıldı.', 'The season is paused.'],
} as const satisfies Record<string, readonly [string, string]>;

export type Key = keyof typeof TEXTS;

let current: Lang = 'tr';
const listeners = new Set<() => void>();

export function lang(): Lang {
  return current;
}

export function setLang(next: Lang): void {
  current = next;
  document.documentElement.lang = next;
  for (const f of listeners) f();
}

export function onLang(f: () => void): void {
  listeners.add(f);
}

/** The text of `key` in the current language, `{name}` filled from `params`. */
export function t(key: Key, params: Record<string, string | number> = {}): string {
  return fill(TEXTS[key][current === 'tr' ? 0 : 1], params);
}

export function fill(text: string, params: Record<string, string | number>): string {
  return text.replace(/\{(\w+)\}/g, (m, name: string) =>
    name in params ? String(params[name]) : m,
  );
}
