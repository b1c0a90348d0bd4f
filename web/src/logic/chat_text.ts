// A chat message's length as the server counts it (R-15.2, shared/domain/chat.py MAX_CHARS;
// tests/web/test_chat_limit.py keeps the two the same): characters are Unicode code points,
// not the UTF-16 code units a textarea's `maxlength` counts (an emoji beyond the BMP is one
// character, not two), of the text the client sends: line breaks as `\n`, trimmed.
export const CHAT_MAX = 1000;

/** The text a send gives the server for what is in the field. */
export function outgoing(value: string): string {
  return value.replace(/\r\n?/g, '\n').trim();
}

/** Code points, as Python's len() of the decoded text (a lone surrogate is one). */
export function codePoints(text: string): number {
  let n = 0;
  for (const _ of text) n += 1;
  return n;
}

/** What the field holds against the limit: its length as the server counts it, and whether
 * it is over (the server would answer 422 `chat_text` with this `limit` and `length`). */
export function chatLength(value: string): { length: number; over: boolean } {
  const length = codePoints(outgoing(value));
  return { length, over: length > CHAT_MAX };
}
