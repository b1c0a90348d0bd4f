// The stream's `offer_answered` said to the bey that made the offer (docs/api.md "The event
// stream"): it was not told live that its offer was answered; now the status line says by
// whom (its name), and what became of it, in the player's language.
import { describe, expect, it } from 'vitest';
import { offerAnsweredText } from '../../src/logic/offers';

const names = (seat: number) => (seat === 2 ? 'Bora' : `${seat}. bey`);

describe('offer_answered in words', () => {
  it('says who accepted or rejected, by name, and when the treaty takes effect', () => {
    expect(offerAnsweredText({ type: 'offer_answered', divan: 3, to: 2, answer: 'accepted' }, names, 'tr')).toBe(
      'Bora teklifini kabul etti: antlaşma 3. Divan’da yürürlüğe girer.',
    );
    expect(offerAnsweredText({ type: 'offer_answered', divan: 3, to: 2, answer: 'accepted' }, names, 'en')).toBe(
      'Bora accepted your offer: the treaty takes effect at Divan 3.',
    );
    expect(offerAnsweredText({ divan: 3, to: 2, answer: 'rejected' }, names, 'tr')).toBe('Bora teklifini reddetti.');
    expect(offerAnsweredText({ divan: 3, to: 2, answer: 'withdrawn' }, names, 'en')).toBe('Your offer to Bora is withdrawn.');
  });

  it('says nothing of what it does not know', () => {
    expect(offerAnsweredText({ divan: 3, to: 2, answer: 'lost' }, names, 'tr')).toBeNull();
    expect(offerAnsweredText({ divan: 3, answer: 'accepted' }, names, 'tr')).toBeNull();
    expect(offerAnsweredText(null, names, 'tr')).toBeNull();
  });
});
