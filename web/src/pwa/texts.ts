// The words of the installable app, the offline notice and the token screen, Turkish first and
// English on the switch (the language of i18n.ts).
import { fill, lang, type Lang } from '../i18n';

const TEXTS = {
  offline: [
    'Çevrimdışısın: oyun verisi (harita, emirler, raporlar) sunucudan gelir, bağlantı dönünce güncellenir.',
    'You are offline: game data (the map, orders, reports) comes from the server and is brought up to date when the connection is back.',
  ],
  tokenTitle: ['Sezon anahtarın', 'Your season key'],
  tokenOnce: [
    'Bu anahtar koltuğunun tek anahtarı ve yalnızca şimdi gösterilir. Başka bir cihazda oynamak için sakla: karekodu o cihazın kamerasıyla okut ya da anahtarı kopyalayıp orada ana sayfaya yapıştır.',
    'This key is the only key to your seat and is shown only now. Keep it to play on another device: scan the QR code with that device’s camera, or copy the key and paste it on its home screen.',
  ],
  tokenLabel: ['Sezon anahtarı (token)', 'Season key (token)'],
  qrLabel: ['Sezon anahtarının karekodu', 'QR code of the season key'],
  copy: ['Anahtarı kopyala', 'Copy the key'],
  copied: ['Kopyalandı.', 'Copied.'],
  copyFailed: ['Kopyalanamadı: anahtarı seçip elle kopyala.', 'Could not copy: select the key and copy it by hand.'],
  kept: ['Sakladım', 'I have kept it'],
  adminTitle: ['Sezon yönetim anahtarın', 'Your season-admin key'],
  adminOnce: [
    'Bu anahtar sezonu yönetir (kaydı ertele, iptal et, duraklat) ve yalnızca şimdi gösterilir. Başka bir cihazdan yönetmek için sakla: sezon anahtarınla birlikte orada yapıştır.',
    'This key runs the season (postpone, cancel, pause) and is shown only now. Keep it to run the season from another device: paste it there with your season key.',
  ],
  adminLabel: ['Sezon yönetim anahtarı', 'Season-admin key'],
  copyAdmin: ['Yönetim anahtarını kopyala', 'Copy the admin key'],
  nothingStored: [
    'Hesap yok; e-posta ya da konum istenmez. Ad isteğe bağlıdır: seçersen herkese açıktır, bütün beyler görür. Anahtar yalnızca bu cihazda durur; sunucu onun yalnızca özetini tutar.',
    'No account; no e-mail or location is asked for. A name is optional: if you choose one, it is public, every bey sees it. The key stays on this device only; the server keeps only a digest of it.',
  ],
  keyCard: ['Anahtar', 'Key'],
  rotate: ['Anahtarı yenile', 'Renew the key'],
  rotateWhy: [
    'Anahtarın başkasının eline geçtiyse yenile: eskisi hemen geçersiz olur, yenisi bir kez gösterilir.',
    'If your key may be in someone else’s hands, renew it: the old one stops working at once, the new one is shown once.',
  ],
  rotateConfirm: ['Eski anahtar hemen geçersiz olacak. Yenilensin mi?', 'The old key will stop working at once. Renew it?'],
  rotated: ['Yeni anahtar: {seat}. koltuk. Eskisi artık geçmez.', 'New key: seat {seat}. The old one no longer works.'],
  cancel: ['Vazgeç', 'Cancel'],
  yes: ['Evet, yenile', 'Yes, renew'],
} as const satisfies Record<string, readonly [string, string]>;

export type PwaKey = keyof typeof TEXTS;

/** The text of `key` in `which` language, `{name}` filled from `params`. */
export function pwaText(key: PwaKey, which: Lang, params: Record<string, string | number> = {}): string {
  return fill(TEXTS[key][which === 'tr' ? 0 : 1], params);
}

export function tx(key: PwaKey, params: Record<string, string | number> = {}): string {
  return pwaText(key, lang(), params);
}
