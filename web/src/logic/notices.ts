// The status notices (docs/web.md "Notices"): a short stack of the recent ones, newest first, so a
// later notice never overwrites an earlier one ("offer made", a refusal, an answer from the
// stream). Pure: the clock is passed in; ui/notice.ts draws the stack and runs the timers.

export type NoticeKind = 'info' | 'error';

export interface Notice {
  id: number;
  text: string;
  kind: NoticeKind;
  /** A notice with a key replaces the one before it with the same key (a 429's wait, a tap). */
  key: string | null;
  /** When an info notice goes by itself (ms on the caller's clock); an error has none: it stays
   * until dismissed. */
  until: number | null;
}

/** At most this many are shown; beyond it the oldest info goes first, then the oldest error. */
export const MAX_NOTICES = 4;
/** How long an info notice stays (ms). */
export const INFO_MS = 30_000;

export class NoticeStack {
  private items: Notice[] = [];
  private next = 1;

  list(): readonly Notice[] {
    return this.items;
  }

  /** Add a notice (newest first). The same text again moves to the top with a fresh time. */
  add(text: string, now: number, kind: NoticeKind = 'info', key: string | null = null): Notice {
    this.items = this.items.filter((n) => n.text !== text && (key === null || n.key !== key));
    const notice: Notice = { id: this.next++, text, kind, key, until: kind === 'info' ? now + INFO_MS : null };
    this.items.unshift(notice);
    while (this.items.length > MAX_NOTICES) {
      const drop = this.items.map((n) => n.kind).lastIndexOf('info');
      this.items.splice(drop >= 0 ? drop : this.items.length - 1, 1);
    }
    return notice;
  }

  dismiss(id: number): void {
    this.items = this.items.filter((n) => n.id !== id);
  }

  /** Remove the notice with this key (and this text, when given: a later one is left). */
  dismissKey(key: string, text?: string): void {
    this.items = this.items.filter((n) => n.key !== key || (text !== undefined && n.text !== text));
  }

  /** Drop the info notices whose time is over; true when any went. */
  expire(now: number): boolean {
    const before = this.items.length;
    this.items = this.items.filter((n) => n.until === null || n.until > now);
    return this.items.length !== before;
  }

  clear(): void {
    this.items = [];
  }
}
