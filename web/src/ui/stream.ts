// The season's event stream (docs/api.md "The event stream"): with a bey's token, a single-use
// ticket for its own events too. A ticket cannot reconnect, so on a drop the stream is closed
// and opened anew with a new ticket and the last event id seen (`last_event_id`), after a
// growing wait (1, 2, 4 … 30 s); a 429 or an error never makes it loop faster.
import { api, streamUrl } from '../api/client';

// `chat_message` (ticket only, ADR-94): a new message in one of the bey's channels; its id
// (`V-k.cN`) resumes the season's messages and the chat both.
export type StreamEvent = 'ready' | 'divan_report' | 'private_report' | 'betrayals' | 'offer_received' | 'offer_withdrawn' | 'offer_answered' | 'kurultay_report' | 'season_over' | 'chat_message';
const EVENTS: StreamEvent[] = ['ready', 'divan_report', 'private_report', 'betrayals', 'offer_received', 'offer_withdrawn', 'offer_answered', 'kurultay_report', 'season_over', 'chat_message'];

export class SeasonStream {
  private source: EventSource | null = null;
  private last: string | null;
  private backoff = 1;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private closed = false;

  constructor(
    private readonly season: string,
    private readonly token: string | null,
    after: number | null,
    // `id`: the message's id (`V-k`, `V-k.cN`), which names the season version it was projected at
    private readonly on: (event: StreamEvent, data: unknown, id: string | null) => void,
    private readonly state: (up: boolean) => void,
  ) {
    this.last = after === null ? null : String(after);
    void this.open();
  }

  lastEventId(): string | null {
    return this.last;
  }

  private async open(): Promise<void> {
    if (this.closed) return;
    let ticket: string | null = null;
    try {
      if (this.token) ticket = (await api.ticket(this.season, this.token)).ticket;
    } catch {
      this.retry();
      return;
    }
    if (this.closed) return;
    const source = new EventSource(streamUrl(this.season, ticket, this.last));
    this.source = source;
    for (const name of EVENTS) {
      source.addEventListener(name, (e) => {
        const m = e as MessageEvent<string>;
        if (m.lastEventId) this.last = m.lastEventId;
        this.backoff = 1;
        if (name === 'ready') this.state(true);
        let data: unknown = null;
        try {
          data = JSON.parse(m.data);
        } catch {
          /* keep null */
        }
        this.on(name, data, m.lastEventId || null);
        if (name === 'season_over') this.close();
      });
    }
    source.onerror = () => {
      // a used ticket cannot reconnect: close, and open anew with a new ticket from `last`
      source.close();
      this.state(false);
      this.retry();
    };
  }

  private retry(): void {
    if (this.closed || this.timer) return;
    const wait = this.backoff;
    this.backoff = Math.min(30, this.backoff * 2);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.open();
    }, wait * 1000);
  }

  close(): void {
    this.closed = true;
    this.source?.close();
    if (this.timer) clearTimeout(this.timer);
  }
}
