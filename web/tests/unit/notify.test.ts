import { describe, expect, it } from 'vitest';
import { keyBytes, subscriptionBody, subscriptionLine } from '../../src/ui/notify';

describe('Web Push subscription (issue 25)', () => {
  it('decodes the VAPID key from base64url to its 65 bytes', () => {
    const key = 'BHQf34ap4jexzFeul6ZBAo1FUdFxV9EdtEhBCyCeT_Caz6XU6LkaNe5vvFn3zCm1dkWT1crqRvhIxmDUUd_7U8w';
    const bytes = keyBytes(key);
    expect(bytes.length).toBe(65);
    expect(bytes[0]).toBe(4); // an uncompressed P-256 point
  });
  it('sends the browser subscription as the server takes it', () => {
    const body = subscriptionBody({ endpoint: 'https://push.example/x', keys: { p256dh: 'p', auth: 'a' } }, 60);
    expect(body).toEqual({ endpoint: 'https://push.example/x', keys: { p256dh: 'p', auth: 'a' }, lead_minutes: 60, always: false, lang: 'tr' });
  });
  it('lists a subscription by its masked endpoint and lead time, never more', () => {
    const sub = { subscription_id: 'ps_1', endpoint: 'https://push.example/…', lead_minutes: 30, always: false, lang: 'tr' };
    expect(subscriptionLine(sub)).toBe('https://push.example/… · Divan’dan 30 dk önce');
    expect(subscriptionLine({ ...sub, always: true })).toBe('https://push.example/… · Divan’dan 30 dk önce · her zaman');
  });
});
