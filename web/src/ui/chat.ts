// The chat (issue 24, R-15): the bey's channels with unread counts, a conversation view with
// system lines (treaties between a private channel's two beys), sending, starting a private
// or group channel, reporting a message and muting a bey. Every text other beys wrote is set
// as text (ui/dom.ts): nothing is ever parsed as markup. Read again on each `chat_message` of
// the bey's event stream (ADR-94), coalesced; a slow poll covers a stream that is down.
// A read draws the channels and the conversation again, never the composer: a message coming
// in leaves the player's draft and its focus alone; the field is emptied only by a send the
// server took. Beys are shown by their names (R-15.5, the season screen's `beyName`).
import { api, type Schemas } from '../api/client';
import { t } from '../i18n';
import { CHAT_MAX, chatCheck, outgoing, type ChatLimit } from '../logic/chat_text';
import { h } from './dom';
import { problemText } from './home';

type Channels = Schemas['ChannelsOut'];
type Line = Schemas['ChatLineOut'];
const FALLBACK_MS = 60_000; // the stream brings news; this only covers one that is down

export class ChatPanel {
  readonly root = h('section', { class: 'card chat', 'aria-labelledby': 'chat-h' });
  private channels: Channels | null = null;
  private open = 'all';
  private lines: Line[] = [];
  private older: number | null = null;
  private note = '';
  private reported = new Set<number>();
  private timer: ReturnType<typeof setInterval> | null = null;
  private reading: Promise<void> | null = null;
  private again = false;
  private readonly top = h('div');
  private readonly bottom = h('div');
  // No `maxlength`: it counts UTF-16 code units, so an emoji took two of the server's 1,000
  // characters; the counter counts code points of what is sent, as the server does.
  private readonly text = h('textarea', { id: 'chat-text', rows: 3, 'aria-describedby': 'chat-count' }) as HTMLTextAreaElement;
  private readonly counter = h('span', { id: 'chat-count', class: 'chat-count' });
  private readonly sendButton = h('button', { type: 'submit' }, t('chatSend')) as HTMLButtonElement;
  private readonly compose = h(
    'form',
    { class: 'chat-compose' },
    h('label', { for: 'chat-text' }, t('chatText')),
    this.text,
    this.counter,
    this.sendButton,
  );
  private shownBeys = '';

  constructor(
    private readonly season: string,
    private readonly token: string,
    private readonly seat: number,
    private readonly others: () => number[],
    private readonly name: (seat: number) => string,
  ) {
    this.compose.addEventListener('submit', (e) => {
      e.preventDefault();
      const value = outgoing(this.text.value);
      if (value && chatCheck(value).over === null) void this.send(value);
    });
    this.text.addEventListener('input', () => this.count());
    this.count();
    this.root.append(this.top, this.compose, this.bottom);
    this.timer = setInterval(() => this.poke(), FALLBACK_MS);
    void this.refresh();
  }

  /** Read again (a `chat_message` came): one read at a time, one more if poked meanwhile. */
  poke(): void {
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = this.refresh().finally(() => {
      this.reading = null;
      if (this.again) {
        this.again = false;
        this.poke();
      }
    });
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** The season was read again: draw again when the beys one can write to, or their names,
   * changed (a join during registration, a name chosen), so the list never goes stale. */
  beysChanged(): void {
    const now = this.others().map((n) => `${n}:${this.name(n)}`).join('|');
    if (now !== this.shownBeys) this.render();
  }

  /** Open (or start) the private channel with `other` (from a bey on the map). */
  talkTo(other: number): void {
    const seats = [this.seat, other].sort((a, b) => a - b);
    this.open = `pair-${seats[0]}-${seats[1]}`;
    this.lines = [];
    this.render();
    this.text.focus();
  }

  async refresh(): Promise<void> {
    try {
      this.channels = await api.channels(this.season, this.token);
      const page = await api.channelMessages(this.season, this.token, this.open, null).catch(() => null);
      this.lines = page ? page.messages : [];
      this.older = page ? page.next_before : null;
      const newest = this.lines.find((l) => l.kind === 'message');
      const here = this.channels.channels.find((c) => c.channel_id === this.open);
      if (newest && here && here.unread > 0) {
        await api.markRead(this.season, this.token, this.open, newest.message_id);
        this.channels = await api.channels(this.season, this.token);
      }
    } catch (e) {
      this.note = problemText(e);
    }
    this.render();
  }

  private membersOf(channel: string): number[] {
    return channel === 'all' ? [] : channel.split('-').slice(1).map(Number);
  }

  private title(channel: string): string {
    if (channel === 'all') return t('chatPublic');
    const list = this.membersOf(channel).filter((n) => n !== this.seat).map((n) => this.name(n)).join(', ');
    return t('chatWith', { list });
  }

  private async send(text: string): Promise<void> {
    const to = this.open === 'all' ? 'all' : this.membersOf(this.open).filter((n) => n !== this.seat);
    try {
      await api.sendMessage(this.season, this.token, to, text);
      this.note = '';
      if (outgoing(this.text.value) === text) {
        this.text.value = '';
        this.count();
      }
    } catch (e) {
      this.note = problemText(e);
    }
    await this.refresh();
  }

  /** The field's length as the server counts it; over one of the server's limits (length,
   * marks in a row, lines) the counter and the field's validity say it in the server's words
   * and the button is off, so nothing is sent to be refused. */
  private count(): void {
    const { length, over } = chatCheck(this.text.value);
    const words = over === null ? '' : limitWords(over);
    this.counter.textContent = over === null ? t('chatCount', { limit: CHAT_MAX, n: length }) : words;
    this.counter.classList.toggle('over', over !== null);
    this.text.setCustomValidity(words);
    this.sendButton.disabled = over !== null;
  }

  private line(l: Line): HTMLElement {
    if (l.kind === 'system') return h('li', { class: 'system' }, `${t('chatSystem')}: ${l.text ?? ''}`);
    const who = l.seat === this.seat ? t('you') : this.name(l.seat ?? 0);
    const body = l.hidden ? h('em', {}, t('chatHidden')) : h('span', { class: 'text' }, l.text ?? '');
    const actions: HTMLElement[] = [];
    if (l.seat !== this.seat && !l.hidden) {
      const done = this.reported.has(l.message_id);
      actions.push(
        h('button', {
          type: 'button',
          class: 'quiet report',
          disabled: done,
          onclick: () => void api.report(this.season, this.token, l.message_id).then(() => {
            this.reported.add(l.message_id);
            this.render();
          }),
        }, done ? t('chatReported') : t('chatReport')),
      );
      const muted = this.channels?.muted.includes(l.seat ?? 0) ?? false;
      actions.push(
        h('button', {
          type: 'button',
          class: 'quiet mute',
          onclick: () => void api.mute(this.season, this.token, l.seat ?? 0, !muted).then(() => this.refresh()),
        }, muted ? t('chatUnmute') : t('chatMute')),
      );
    }
    return h('li', { 'data-id': l.message_id }, h('strong', {}, `${who}: `), body, ' ', ...actions);
  }

  private starter(): HTMLElement {
    // seats ticked before this drawing stay ticked
    const ticked = new Set([...this.bottom.querySelectorAll<HTMLInputElement>('form.chat-new input:checked')].map((i) => Number(i.value)));
    const others = this.others();
    this.shownBeys = others.map((n) => `${n}:${this.name(n)}`).join('|');
    const boxes = others.map((n) => {
      const id = `chat-to-${n}`;
      return h('span', { class: 'kind' }, h('input', { type: 'checkbox', id, value: n, checked: ticked.has(n) }), h('label', { for: id }, this.name(n)));
    });
    const form = h('form', { class: 'chat-new' }, h('fieldset', {}, h('legend', {}, t('chatNew')), ...boxes), h('button', { type: 'submit' }, t('chatStart')));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const picked = [...form.querySelectorAll<HTMLInputElement>('input:checked')].map((i) => Number(i.value));
      if (picked.length === 0) return;
      const seats = [...new Set([...picked, this.seat])].sort((a, b) => a - b);
      this.open = `${seats.length === 2 ? 'pair' : 'group'}-${seats.join('-')}`;
      void this.refresh();
    });
    return form;
  }

  render(): void {
    const c = this.channels;
    if (c && c.press === 'none') {
      this.top.replaceChildren(h('h2', { id: 'chat-h' }, t('chat')), h('p', {}, t('chatClosed')));
      this.compose.hidden = true;
      this.bottom.replaceChildren();
      return;
    }
    const list = h('ul', { class: 'channels' });
    const known = new Set((c?.channels ?? []).map((x) => x.channel_id));
    const names = [...known];
    if (!known.has(this.open)) names.push(this.open);
    for (const name of names) {
      const info = c?.channels.find((x) => x.channel_id === name);
      list.append(
        h('li', {},
          h('button', {
            type: 'button',
            class: name === this.open ? 'channel current' : 'channel',
            'aria-current': name === this.open ? 'true' : null,
            onclick: () => { this.open = name; void this.refresh(); },
          }, this.title(name), info && info.unread > 0 ? ` (${t('chatUnread', { n: info.unread })})` : ''),
        ),
      );
    }
    const writable = c ? c.writable : true;
    this.compose.hidden = !writable;
    this.sendButton.disabled = !writable;
    const older = this.older;
    const parts: (HTMLElement | null)[] = [
      h('h2', { id: 'chat-h' }, t('chat')),
      h('p', { class: 'small' }, t('chatNote')),
      h('h3', {}, t('chatChannels')),
      list,
      h('h3', {}, this.title(this.open)),
      this.lines.length === 0 ? h('p', {}, t('chatEmpty')) : h('ol', { class: 'conversation', 'aria-live': 'polite' }, ...[...this.lines].reverse().map((l) => this.line(l))),
      older === null ? null : h('button', { type: 'button', class: 'quiet', onclick: () => void this.more(older) }, t('chatOlder')),
      writable ? null : h('p', {}, t('chatReadOnly')),
    ];
    const after: (HTMLElement | null)[] = [
      this.note ? h('p', { class: 'error', role: 'alert' }, this.note) : null,
      c && c.muted.length ? h('p', { class: 'small' }, t('chatMuted', { list: c.muted.map((n) => this.name(n)).join(', ') })) : null,
      this.starter(),
    ];
    this.top.replaceChildren(...parts.filter((x): x is HTMLElement => x !== null));
    this.bottom.replaceChildren(...after.filter((x): x is HTMLElement => x !== null));
  }

  private async more(before: number): Promise<void> {
    const page = await api.channelMessages(this.season, this.token, this.open, before);
    this.lines = [...this.lines, ...page.messages];
    this.older = page.next_before;
    this.render();
  }
}

/** A broken limit in the server's words (shared/domain/messages.py `chat_text.*`). */
function limitWords(over: ChatLimit): string {
  if (over.kind === 'too_long') return t('chatTooLong', { limit: over.limit, n: over.length });
  return t(over.kind === 'marks' ? 'chatMarks' : 'chatTooManyLines', { limit: over.limit });
}
