// The console's small parts (issue 26): a refusal shown, a table, a labelled field, a download.
import { ApiProblem } from '../api/client';
import { h, clear, type Child } from './dom';
import { ct } from './console_text';
import { lang } from '../i18n';
import { problemMessage } from '../logic/problems';
import { istanbulSeconds } from '../logic/format';

/** A refusal in words, as the player's client says it (logic/problems.ts is the one place: the
 * server's detail with its JSON paths named in words, the stable code in parentheses); it was
 * the raw `code: detail`. Anything else (no answer, a file that would not download) as it is. */
export function failureText(e: unknown): string {
  return ct('failed', { detail: e instanceof ApiProblem ? problemMessage(e, lang()) : String(e) });
}

export function failure(e: unknown): HTMLElement {
  return h('p', { class: 'bad', role: 'alert' }, failureText(e));
}

/** A recorded instant for people: Istanbul's time to the second, the exact instant as
 * recorded (microseconds, offset) in its `title` and, as HTML can hold it, in `datetime`; it
 * was the raw ISO text. `none` for an instant the record does not have. */
export function instant(at: string | null | undefined, none: Child = '–'): Child {
  if (!at) return none;
  const when = new Date(at);
  if (Number.isNaN(when.getTime())) return at;
  return h('time', { datetime: when.toISOString(), title: at }, istanbulSeconds(at, lang()));
}

export function table(head: string[], rows: Child[][]): HTMLElement {
  return h(
    'table',
    {},
    h('thead', {}, h('tr', {}, ...head.map((x) => h('th', { scope: 'col' }, x)))),
    h('tbody', {}, ...rows.map((r) => h('tr', {}, ...r.map((c) => h('td', {}, c))))),
  );
}

export function field(id: string, label: string, attrs: Record<string, string | number | boolean> = {}): [HTMLElement, HTMLInputElement] {
  const input = h('input', { id, ...attrs });
  return [h('label', { for: id }, label, input), input];
}

/** A file offered for download: an object URL behind a link the user follows. */
export async function downloadLink(box: HTMLElement, name: string, blob: () => Promise<Blob>): Promise<void> {
  clear(box);
  try {
    const url = URL.createObjectURL(await blob());
    box.append(h('a', { href: url, download: name, class: 'download' }, ct('exportReady', { name })));
  } catch (e) {
    box.append(failure(e));
  }
}

