// The console's own words (issue 26), Turkish first, English on the switch; kept apart from
// i18n.ts (the player's client) so the two grow without stepping on each other.
import { fill, lang, type Lang } from '../i18n';
import { outcomeWord, whyWord } from '../logic/words';

export const CONSOLE_TEXTS = {
  title: ['Konsol: ops ve denetçi', 'Console: ops and auditors'],
  intro: [
    'Tartışmalı bir Divan’ı harita üzerinde açıklayın, deneyin, düzeltin; ihanetleri kanıtlarıyla inceleyin.',
    'Explain, try and correct a disputed Divan on the map; inspect betrayals with their evidence.',
  ],
  role: ['Rol', 'Role'],
  ops: ['Ops', 'Ops'],
  auditor: ['Denetçi', 'Auditor'],
  token: ['Belirteç', 'Token'],
  tokenNote: [
    'Belirteç yalnızca bu sekmenin belleğinde tutulur; hiçbir yere kaydedilmez.',
    'The token is kept in this tab’s memory only; it is never stored.',
  ],
  enter: ['Gir', 'Enter'],
  leave: ['Belirteci unut', 'Forget the token'],
  signedAs: ['{role} olarak', 'As {role}'],
  find: ['Sezon bul', 'Find a season'],
  seasonOrLink: ['Sezon kimliği ya da rapor bağlantısı', 'Season id or report link'],
  open: ['Aç', 'Open'],
  noSeason: ['Bu metinde sezon kimliği yok.', 'No season id in this text.'],
  season: ['Sezon {id}', 'Season {id}'],
  // the API's words (a season's mode and phase, a treaty's kind, an order's) said as words of
  // the console's language; they were shown as the API spells them ("live · registration" in
  // the Turkish console). A battle's outcome is the catalogue's (logic/words.ts, apiWord)
  word_trial: ['deneme', 'trial'],
  word_live: ['canlı', 'live'],
  word_registration: ['kayıt', 'registration'],
  word_running: ['sürüyor', 'running'],
  word_kurultay: ['Kurultay', 'Kurultay'],
  word_over: ['bitti', 'over'],
  word_pact: ['saldırmazlık', 'pact'],
  word_alliance: ['ittifak', 'alliance'],
  word_advance: ['ilerle', 'advance'],
  word_support: ['destek', 'support'],
  word_hold: ['bekle', 'hold'],
  statusLine: ['{mode} · {phase} · Divan {divan} · sürüm {version}', '{mode} · {phase} · Divan {divan} · version {version}'],
  calendar: ['Takvim', 'Calendar'],
  noCalendar: ['Deneme sezonu: Divan’lar istekle toplanır (R-1.2).', 'A trial season: Divans are held on request (R-1.2).'],
  divans: ['Divan’lar', 'Divans'],
  divanN: ['Divan {n}', 'Divan {n}'],
  noDivans: ['Henüz çözülmüş Divan yok.', 'No Divan resolved yet.'],
  at: ['Zaman (İstanbul)', 'At (Istanbul)'],
  trail: ['Ops okuma izi', 'Ops-read trail'],
  what: ['Ne', 'What'],
  actor: ['Kim', 'Actor'],
  noReads: ['Kayıtlı okuma yok.', 'No read recorded.'],
  explain: ['Divan {n} açıklaması', 'Divan {n} explained'],
  verified: ['Yeniden çalıştırma kayıtla aynı (R-12.3).', 'The re-run matches the record (R-12.3).'],
  notVerified: ['Yeniden çalıştırma kayıttan farklı!', 'The re-run differs from the record!'],
  orderSets: ['Gönderilen emirler', 'Orders as submitted'],
  lockedAt: ['Kilit (İstanbul):', 'Locked (Istanbul):'],
  seat: ['Koltuk', 'Seat'],
  submittedAt: ['Gönderildi (İstanbul)', 'Submitted (Istanbul)'],
  sealed: ['Mühürlü', 'Sealed'],
  beforeLock: ['Kilitten önce', 'Before the lock'],
  orders: ['Emirler', 'Orders'],
  atLock: ['kilitte (bilgisayar bey)', 'at the lock (computer bey)'],
  yes: ['evet', 'yes'],
  no: ['hayır', 'no'],
  battles: ['Savaşlar', 'Battles'],
  noBattles: ['Bu Divan’da savaş yok.', 'No battle at this Divan.'],
  battleAt: ['{name} ({plate}): {outcome}', '{name} ({plate}): {outcome}'],
  defender: ['Savunan: {who}, {units} birlik', 'Defender: {who}, {units:unit|units}'],
  milis: ['milis', 'the milis'],
  bey: ['{n}. bey', 'Bey {n}'], // as the player's client (i18n.ts) and the server's catalogue say it
  attackers: ['Saldıranlar', 'Attackers'],
  advanceLine: ['{seat}. bey: {from} → {units} birlik (emir {ordered}){betrayal}', 'Bey {seat}: from {from}, {units:unit|units} (ordered {ordered}){betrayal}'],
  betrayalMark: [' — ihanet', ' — betrayal'],
  group: ['Grup {i}: güç {strength}, destek {support}{traitor}', 'Group {i}: strength {strength}, support {support}{traitor}'],
  traitorMark: [' (hain: zar 0)', ' (traitor: die 0)'],
  supports: ['Destekler', 'Supports'],
  supportLine: ['{seat}. bey: {from} → {units} birlik, {kind}, {counted}: {why}', 'Bey {seat}: from {from}, {units:unit|units}, {kind}, {counted}: {why}'],
  counted: ['sayıldı', 'counted'],
  notCounted: ['sayılmadı', 'not counted'],
  bonuses: ['Savunma bonusu: memleket {m}, sur {s}, hemşehri {h} = {t}', 'Defence bonus: memleket {m}, sur {s}, hemşehri {h} = {t}'],
  dice: ['Zarlar', 'Dice'],
  dieLine: ['{side} {value} — anahtar Divan {divan}, {purpose}, [{key}]{drawn}{pinned} ({rule})', '{side} {value} — key Divan {divan}, {purpose}, [{key}]{drawn}{pinned} ({rule})'],
  notDrawn: [', çekilmedi', ', not drawn'],
  pinnedMark: [', sabitlendi', ', pinned'],
  attack: ['saldırı', 'attack'],
  defence: ['savunma', 'defence'],
  totals: ['Saldırı {a} – savunma {d}; kayıplar {al}/{dl}', 'Attack {a} – defence {d}; losses {al}/{dl}'],
  rules: ['Kurallar: {rules}', 'Rules: {rules}'],
  showOnMap: ['Haritada göster', 'Show on the map'],
  dropped: ['Hiçbir şey yapmayan emirler', 'Orders that did nothing'],
  corrections: ['Uygulanan düzeltmeler', 'Corrections applied'],
  whatIf: ['Ya olsaydı (hiçbir şey yazılmaz)', 'What-if (nothing is written)'],
  addChange: ['Emir değişikliği ekle', 'Add an order change'],
  addDie: ['Zar sabitle', 'Pin a die'],
  from: ['Nereden', 'From'],
  kind: ['Tür', 'Kind'],
  to: ['Nereye', 'To'],
  units: ['Birlik', 'Units'],
  target: ['Hedef il', 'Target'],
  side: ['Taraf', 'Side'],
  value: ['Değer', 'Value'],
  remove: ['Kaldır', 'Remove'],
  run: ['Dene', 'Run it'],
  removeAdvance: ['Bu ilerlemeyi kaldır', 'Remove this advance'],
  pinDie: ['Bu zarı sabitle', 'Pin this die'],
  unchanged: ['Kayıttan farkı yok.', 'No difference from the record.'],
  differs: ['Kayıttan farklı; haritada mor çizgiyle işaretli iller değişir.', 'It differs from the record; the provinces outlined in purple on the map change.'],
  changedBattles: ['Farklı savaşlar', 'Battles that differ'],
  recorded: ['Kayıt', 'Recorded'],
  whatIfCol: ['Ya olsaydı', 'What-if'],
  changedProvinces: ['Farklı iller', 'Provinces that differ'],
  changedBeys: ['Farklı beyler', 'Beys that differ'],
  province: ['İl', 'Province'],
  owner: ['Sahip', 'Owner'],
  gold: ['Altın', 'Gold'],
  fork: ['Bu Divan’dan deneme sezonu çatalla', 'Fork a trial from this Divan'],
  forkDo: ['Çatalla', 'Fork'],
  forked: ['Yeni sezon {id}, koltuk {seat}. Belirteç yalnızca bir kez gösterilir:', 'New season {id}, seat {seat}. The token is shown once:'],
  openForked: ['Çatalı aç', 'Open the fork'],
  correct: ['Düzeltme', 'Correction'],
  reason: ['Gerekçe', 'Reason'],
  dryRun: ['Önce dene (yazmaz)', 'Dry run (writes nothing)'],
  apply: ['Düzeltmeyi uygula', 'Apply the correction'],
  applyNeedsDry: ['Uygulamadan önce aynı düzeltmeyi deneyin.', 'Dry-run this same correction before applying it.'],
  applied: ['Uygulandı: Divan {divan} sonrasına, sürüm {version}.', 'Applied after Divan {divan}, version {version}.'],
  publicLines: ['Açık rapordaki düzeltmeler', 'Corrections in the public report'],
  sur: ['Sur', 'Sur'],
  verify: ['Doğrula', 'Verify'],
  verifyOk: ['Doğrulandı: zincir, Divan’lar, tohum ve mühürler tutuyor.', 'Verified: the chain, the Divans, the seed and the seals hold.'],
  verifyBad: ['Doğrulama başarısız: {why}', 'Verification failed: {why}'],
  exportFull: ['Dışa aktarımı indir (tam)', 'Download the export (full)'],
  exportRedacted: ['Dışa aktarımı indir (R-14 sansürlü)', 'Download the export (redacted under R-14)'],
  exportReady: ['{name} hazır: indir', '{name} ready: download'],
  history: ['İhanet geçmişi', 'Betrayal history'],
  historyNote: [
    'Bir beyin memleketiyle (sezonlar boyunca), bir sezonla ya da bir oyuncuyla (bir sezonda ya da bitmiş sezonlarında) arayın; birlikte süzerler.',
    'Search by a bey’s memleket (across seasons), by a season or by a player (in one season, or its finished seasons); together they filter.',
  ],
  memleketPlate: ['Memleket plakası (bey)', 'Memleket plate (bey)'],
  seasonFilter: ['Sezon (isteğe bağlı)', 'Season (optional)'],
  playerFilter: ['Oyuncu kimliği (isteğe bağlı)', 'Player id (optional)'],
  show: ['Göster', 'Show'],
  needOne: ['Bir memleket, bir sezon ya da bir oyuncu girin.', 'Enter a memleket, a season or a player.'],
  noBetrayals: ['İhanet yok.', 'No betrayal.'],
  betrayalLine: [
    'Divan {divan}: {traitor}. bey (memleket {tm}) → {victim}. bey (memleket {vm}), {province}; hain {through} Divan’ına dek',
    'Divan {divan}: Bey {traitor} (memleket {tm}) betrayed Bey {victim} (memleket {vm}) at {province}; Hain through Divan {through}',
  ],
  treatyLine: ['Antlaşma: {kind}, beyler {beys}, Divan {from} – {through}', 'Treaty: {kind}, beys {beys}, Divan {from} – {through}'],
  ordersLine: ['Emirler: {orders}', 'Orders: {orders}'],
  battleLine: ['Savaş: {outcome}, saldırı {a}, savunma {d}, zarlar {ad}/{dd}', 'Battle: {outcome}, attack {a}, defence {d}, dice {ad}/{dd}'],
  notFull: ['Kanıt gizli (R-14)', 'Evidence withheld (R-14)'],
  seasonHead: ['Sezon {id} ({phase})', 'Season {id} ({phase})'],
  auditExport: ['Sansürlü dışa aktarım', 'Redacted export'],
  failed: ['Olmadı: {detail}', 'Refused: {detail}'],
  loading: ['Yükleniyor…', 'Loading…'],
  chatActs: ['Sohbet denetim işlemleri', 'Chat moderation acts'],
  noActs: ['Kayıtlı denetim işlemi yok.', 'No moderation act recorded.'],
  message: ['İleti', 'Message'],
  channel: ['Kanal', 'Channel'],
  reported: ['bildirildi', 'reported'],
  hidden: ['gizlendi', 'hidden'],
  erased: ['silindi', 'erased'],
  chPublic: ['açık', 'public'],
  chPrivate: ['özel', 'private'],
  chGroup: ['grup', 'group'],
} as const satisfies Record<string, readonly [string, string]>;

export type CKey = keyof typeof CONSOLE_TEXTS;

/** One of the API's words (`live`, `registration`, `pact`) in the console's language; a
 * battle's outcome (`taken`) in the catalogue's words, as the reports and the player's screens
 * say it (logic/words.ts); a word the console does not know yet as the API spells it. */
export function apiWord(value: string): string {
  const key = `word_${value}`;
  return key in CONSOLE_TEXTS ? ct(key as CKey) : (outcomeWord(value, lang()) ?? value);
}

/** Why an order did nothing (`not_owned` …), or why a support counted or not (`own_province`,
 * `ally` …), in the words players and `seksenbir explain` read (the catalogue's,
 * logic/words.ts), with its code and rule(s) beside them for ops; the code alone for a reason
 * the catalogue does not hold. */
export function whySaid(reason: string, rule: string | readonly string[] | null = null): string {
  const words = whyWord(reason, lang());
  const rules = typeof rule === 'string' ? rule : rule?.join(', ');
  const codes = [reason, rules].filter(Boolean).join(' · ');
  return words ? `${words} (${codes})` : `${codes}`;
}

export function ct(key: CKey, params: Record<string, string | number> = {}): string {
  return ctIn(key, lang(), params);
}

/** The console's text of `key` in `which` language (the tests read both). */
export function ctIn(key: CKey, which: Lang, params: Record<string, string | number> = {}): string {
  return fill(CONSOLE_TEXTS[key][which === 'tr' ? 0 : 1], params);
}
