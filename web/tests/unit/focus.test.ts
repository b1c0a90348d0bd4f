// A keyboard's focus told again after a card is drawn anew (docs/web.md "Season": usable with a
// keyboard alone): the same control is found by its id, else by its kind, data and words.
import { describe, expect, it } from 'vitest';
import { focusKey, sameFocus } from '../../src/logic/focus';

const el = (tag: string, id = '', data: Record<string, string> = {}, text = '', label: string | null = null) => ({
  id,
  tagName: tag,
  dataset: data,
  textContent: text,
  getAttribute: (name: string) => (name === 'aria-label' ? label : null),
});

describe('the focus kept across a redraw', () => {
  it('finds a control by its id', () => {
    expect(sameFocus(focusKey(el('INPUT', 'kind-support')), focusKey(el('INPUT', 'kind-support')))).toBe(true);
    expect(sameFocus(focusKey(el('INPUT', 'kind-support')), focusKey(el('INPUT', 'kind-hold')))).toBe(false);
  });

  it('tells apart controls without an id by their data and words', () => {
    const accept2 = focusKey(el('BUTTON', '', { from: '2' }, 'Kabul et'));
    expect(sameFocus(accept2, focusKey(el('BUTTON', '', { from: '2' }, ' Kabul et ')))).toBe(true);
    expect(sameFocus(accept2, focusKey(el('BUTTON', '', { from: '5' }, 'Kabul et')))).toBe(false); // another offer's
    expect(sameFocus(accept2, focusKey(el('BUTTON', '', { from: '2' }, 'Reddet')))).toBe(false);
    const give = focusKey(el('BUTTON', '', {}, 'Emir ver', 'Emir ver: Ankara'));
    expect(sameFocus(give, focusKey(el('BUTTON', '', {}, 'Emir ver', 'Emir ver: Bolu')))).toBe(false);
    expect(sameFocus(give, focusKey(el('BUTTON', '', {}, 'Emir ver', 'Emir ver: Ankara')))).toBe(true);
  });
});
