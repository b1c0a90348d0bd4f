// The status notices at the top (role=status, aria-live polite): waits, answers, errors that are
// not a form's own. A short stack, newest first (logic/notices.ts): a later notice never
// overwrites an earlier one; each has its own dismiss button; an info notice goes by itself
// after INFO_MS, an error stays until dismissed.
import { t } from '../i18n';
import { NoticeStack, type NoticeKind } from '../logic/notices';
import { h } from './dom';

const stack = new NoticeStack();
const drawn = new Map<number, HTMLElement>();
let box: HTMLElement | null = null;
let timer: ReturnType<typeof setTimeout> | null = null;

/** The notices' container for a new screen: the stack starts empty (main.ts, at each route). */
export function noticeBox(): HTMLElement {
  stack.clear();
  drawn.clear();
  if (timer) clearTimeout(timer);
  timer = null;
  box = h('div', { id: 'notice', role: 'status', 'aria-live': 'polite', tabindex: '-1' });
  return box;
}

/** Say `text` on top of the stack; a `key` replaces the notice before it with the same key. */
export function notice(text: string, kind: NoticeKind = 'info', key: string | null = null): void {
  if (text) stack.add(text, Date.now(), kind, key);
  else if (key) stack.dismissKey(key);
  draw();
}

/** Take back the notice of `key` if it still says `text` (a later one is left as it is). */
export function clearNotice(key: string, text?: string): void {
  stack.dismissKey(key, text);
  draw();
}

function item(id: number, text: string, kind: NoticeKind): HTMLElement {
  return h(
    'p',
    { class: `notice ${kind}`, 'data-kind': kind },
    h('span', { class: 'notice-text' }, text),
    h(
      'button',
      {
        type: 'button',
        class: 'dismiss',
        'aria-label': `${t('dismiss')}: ${text}`,
        onclick: () => {
          const after = drawn.get(id)?.nextElementSibling ?? drawn.get(id)?.previousElementSibling;
          stack.dismiss(id);
          draw();
          // the focus goes to the next notice's button, or to the stack, never to the page
          const next = after?.querySelector('button');
          (next instanceof HTMLElement ? next : box)?.focus();
        },
      },
      '×',
    ),
  );
}

function draw(): void {
  if (!box) return;
  const now = Date.now();
  stack.expire(now);
  const list = stack.list();
  const ids = new Set(list.map((n) => n.id));
  for (const [id, el] of drawn) {
    if (!ids.has(id)) {
      el.remove();
      drawn.delete(id);
    }
  }
  // new notices go in at their place; the ones already shown are never moved (a focused
  // dismiss button keeps its focus while others come and go)
  list.forEach((n, i) => {
    if (drawn.has(n.id)) return;
    const el = item(n.id, n.text, n.kind);
    drawn.set(n.id, el);
    box?.insertBefore(el, box.children[i] ?? null);
  });
  if (timer) clearTimeout(timer);
  timer = null;
  const due = list.map((n) => n.until).filter((u): u is number => u !== null);
  if (due.length) timer = setTimeout(draw, Math.max(0, Math.min(...due) - now) + 50);
}
