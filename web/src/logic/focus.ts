// Which control had the focus, told again after a card is drawn anew (ui/season.ts `render`):
// by its id where it has one, else by its tag, its `data-*` keys and its words (aria-label or
// text), which a control drawn again for the same thing keeps.

export interface FocusKey {
  id: string;
  tag: string;
  data: string;
  words: string;
}

interface Focusable {
  id: string;
  tagName: string;
  dataset: Record<string, string | undefined>;
  textContent: string | null;
  getAttribute(name: string): string | null;
}

export function focusKey(el: Focusable): FocusKey {
  const data = Object.entries(el.dataset)
    .map(([k, v]) => `${k}=${v ?? ''}`)
    .sort()
    .join('&');
  return { id: el.id, tag: el.tagName, data, words: (el.getAttribute('aria-label') ?? el.textContent ?? '').trim() };
}

export function sameFocus(a: FocusKey, b: FocusKey): boolean {
  if (a.id || b.id) return a.id === b.id;
  return a.tag === b.tag && a.data === b.data && a.words === b.words;
}

/** The control in `root` that `key` names, or null. */
export function findFocus(root: ParentNode, key: FocusKey): HTMLElement | null {
  if (key.id) return root.querySelector<HTMLElement>(`#${CSS.escape(key.id)}`);
  for (const el of root.querySelectorAll<HTMLElement>(key.tag.toLowerCase())) {
    if (sameFocus(focusKey(el), key)) return el;
  }
  return null;
}
