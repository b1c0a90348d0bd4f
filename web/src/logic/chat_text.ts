// A chat message checked as the server checks it (R-15.2, shared/domain/chat.py text_refusal;
// tests/web/test_chat_limit.py keeps the limits the same): characters are Unicode code points,
// not the UTF-16 code units a textarea's `maxlength` counts (an emoji beyond the BMP is one
// character, not two), of the text the client sends: line breaks as `\n`, trimmed.
// the server's chat.MAX_CHARS, chat.MAX_LINES (lines, `\n` separated) and chat.MAX_MARKS
// (combining marks, Mn, Mc or Me, in a row)
export const CHAT_MAX = 1000;
export const CHAT_MAX_LINES = 20;
export const CHAT_MAX_MARKS = 30;

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

/** Lines as the server counts them: one more than the `\n`s. */
export function lineCount(text: string): number {
  return text.split('\n').length;
}

const MARK = /^\p{M}$/u; // General_Category Mark: Python's unicodedata.category(ch)[0] == 'M'

/** The longest run of combining marks in `text`, code point by code point, as the server's
 * `_marks_in_a_row` (a lone surrogate is no mark and ends a run). */
export function marksInARow(text: string): number {
  let longest = 0;
  let run = 0;
  for (const ch of text) {
    run = MARK.test(ch) ? run + 1 : 0;
    longest = Math.max(longest, run);
  }
  return longest;
}

/** Which of the server's limits the text breaks, in the server's order (the length first,
 * then the marks, then the lines), with what its words need; null: none. The server answers
 * 422 `chat_text` with the same variant. (Characters the server refuses are left to it.) */
export type ChatLimit = { kind: 'too_long'; limit: number; length: number } | { kind: 'marks'; limit: number } | { kind: 'too_many_lines'; limit: number };

/** What the field holds against the limits: its length as the server counts it, and the first
 * limit it breaks (null: none). */
export function chatCheck(value: string): { length: number; over: ChatLimit | null } {
  const text = outgoing(value);
  const length = codePoints(text);
  if (length > CHAT_MAX) return { length, over: { kind: 'too_long', limit: CHAT_MAX, length } };
  if (marksInARow(text) > CHAT_MAX_MARKS) return { length, over: { kind: 'marks', limit: CHAT_MAX_MARKS } };
  if (lineCount(text) > CHAT_MAX_LINES) return { length, over: { kind: 'too_many_lines', limit: CHAT_MAX_LINES } };
  return { length, over: null };
}
