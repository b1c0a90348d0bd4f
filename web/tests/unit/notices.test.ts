import { describe, expect, it } from 'vitest';
import { INFO_MS, MAX_NOTICES, NoticeStack } from '../../src/logic/notices';

describe('status notices (docs/web.md "Notices")', () => {
  it('keeps an earlier notice when a later one comes, newest first', () => {
    const s = new NoticeStack();
    s.add('Teklif yapıldı', 0);
    s.add('Bora teklifini kabul etti', 10);
    expect(s.list().map((n) => n.text)).toEqual(['Bora teklifini kabul etti', 'Teklif yapıldı']);
  });
  it('lets an info notice go by itself, an error only when dismissed', () => {
    const s = new NoticeStack();
    const err = s.add('Reddedildi (bad_order)', 0, 'error');
    s.add('Harcandı', 0);
    expect(s.expire(INFO_MS - 1)).toBe(false);
    expect(s.expire(INFO_MS)).toBe(true);
    expect(s.list().map((n) => n.text)).toEqual(['Reddedildi (bad_order)']);
    expect(s.expire(10 * INFO_MS)).toBe(false);
    s.dismiss(err.id);
    expect(s.list()).toEqual([]);
  });
  it('holds a few: the oldest info goes first, errors are kept over infos', () => {
    const s = new NoticeStack();
    s.add('e1', 0, 'error');
    for (let i = 0; i < MAX_NOTICES + 2; i++) s.add(`i${i}`, i);
    const texts = s.list().map((n) => n.text);
    expect(texts).toHaveLength(MAX_NOTICES);
    expect(texts).toContain('e1');
    expect(texts[0]).toBe(`i${MAX_NOTICES + 1}`);
  });
  it('replaces a notice of the same key, and the same text moves to the top once', () => {
    const s = new NoticeStack();
    s.add('Bekle: 3 sn', 0, 'info', 'wait');
    s.add('Teklif yapıldı', 1);
    s.add('Bekle: 2 sn', 2, 'info', 'wait');
    s.add('Teklif yapıldı', 3);
    expect(s.list().map((n) => n.text)).toEqual(['Teklif yapıldı', 'Bekle: 2 sn']);
    s.dismissKey('wait', 'Bekle: 3 sn'); // an older wait's clearing leaves the later one
    expect(s.list()).toHaveLength(2);
    s.dismissKey('wait');
    expect(s.list().map((n) => n.text)).toEqual(['Teklif yapıldı']);
  });
});
