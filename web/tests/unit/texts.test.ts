// The token dialog's and key card's plain statement (docs/web.md "The token") is a promise to
// the player: it must be true. A bey may choose a public display name (R-15.5, docs/api.md
// "Beys' names"), so the statement may not say no name is asked for, and says the name is public.
import { describe, expect, it } from 'vitest';
import { tIn } from '../../src/i18n';
import { pwaText } from '../../src/pwa/texts';

describe('the statement on the key card', () => {
  it('says a name is optional and public, not that none is asked for', () => {
    const tr = pwaText('nothingStored', 'tr');
    const en = pwaText('nothingStored', 'en');
    expect(tr).not.toMatch(/\bad,/);
    expect(en).not.toMatch(/no name/i);
    expect(tr).toMatch(/Ad isteğe bağlıdır.*herkese açık/);
    expect(en).toMatch(/A name is optional.*public/);
    // what stays true stays said: no account, no e-mail or location, the key on this device only
    expect(tr).toMatch(/hesap yok/i);
    expect(en).toMatch(/no account/i);
    expect(en).toMatch(/only a digest/);
  });
});

describe("home's line under the saved seasons", () => {
  it('does not say nothing about the player is stored: a chosen name is kept, and public', () => {
    const tr = tIn('privacy', 'tr');
    const en = tIn('privacy', 'en');
    expect(tr).not.toMatch(/hiçbir şey saklanmıyor/);
    expect(en).not.toMatch(/nothing about you is stored/i);
    expect(tr).toMatch(/Hesap yok/);
    expect(tr).toMatch(/ad.*herkese açık/i);
    expect(en).toMatch(/No account/);
    expect(en).toMatch(/name.*public/i);
  });
});
