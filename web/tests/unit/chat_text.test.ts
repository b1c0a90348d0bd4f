import { describe, expect, it } from 'vitest';
import { CHAT_MAX, CHAT_MAX_LINES, CHAT_MAX_MARKS, chatCheck, codePoints, lineCount, marksInARow, outgoing } from '../../src/logic/chat_text';
import { tIn } from '../../src/i18n';

describe("a chat message's length, as the server counts it (R-15.2)", () => {
  it('counts an emoji beyond the BMP once, as Python does, not twice as maxlength did', () => {
    expect('😀'.length).toBe(2);
    expect(codePoints('😀')).toBe(1);
    expect(codePoints('👍🏽')).toBe(2); // a base and a modifier: two code points, two characters
    expect(codePoints('ş')).toBe(1);
    expect(codePoints(`a${String.fromCharCode(0xd800)}b`)).toBe(3); // a lone surrogate: one
  });
  it('takes 1,000 emoji, which maxlength=1000 cut at 500, and refuses 1,001', () => {
    expect(chatCheck('😀'.repeat(CHAT_MAX))).toEqual({ length: 1000, over: null });
    expect(chatCheck('😀'.repeat(CHAT_MAX + 1))).toEqual({ length: 1001, over: { kind: 'too_long', limit: 1000, length: 1001 } });
    expect(chatCheck('ş'.repeat(CHAT_MAX + 1)).over?.kind).toBe('too_long');
  });
  it('counts what is sent: line breaks as \\n, the ends trimmed', () => {
    expect(outgoing('  a\r\nb\rc \n')).toBe('a\nb\nc');
    expect(chatCheck(`  ${'x'.repeat(CHAT_MAX)}  `)).toEqual({ length: 1000, over: null });
    expect(chatCheck('a\r\nb').length).toBe(3);
  });
});

// Round 1 left it (session 23): the composer sent what the server refuses for its lines or its
// marks in a row; it checks them as shared/domain/chat.py text_refusal does, and says so in the
// server's words (shared/domain/messages.py chat_text.too_many_lines, chat_text.marks).
describe("a chat message's lines and marks in a row, as the server counts them", () => {
  it('counts lines as the \\n of the text sent, plus one (a CRLF is one break)', () => {
    const lines = (n: number) => Array.from({ length: n }, (_, i) => `s${i}`).join('\n');
    expect(lineCount('a')).toBe(1);
    expect(lineCount('a\n\nb')).toBe(3); // an empty line is a line
    expect(chatCheck(lines(CHAT_MAX_LINES)).over).toBeNull();
    expect(chatCheck(lines(CHAT_MAX_LINES + 1)).over).toEqual({ kind: 'too_many_lines', limit: 20 });
    expect(chatCheck(lines(CHAT_MAX_LINES).replace(/\n/g, '\r\n')).over).toBeNull();
    expect(chatCheck(`\n\n${lines(CHAT_MAX_LINES)}\n\n\n`).over).toBeNull(); // the ends trimmed
  });
  it('counts combining marks (Mn, Mc, Me) in a row, code point by code point', () => {
    const acute = '\u0301'; // Mn
    expect(marksInARow(`a${acute.repeat(3)}b${acute}`)).toBe(3);
    expect(marksInARow('\u0915\u093e\u093f')).toBe(2); // Devanagari vowel signs: Mc
    expect(marksInARow('x\u20dd\u20dd')).toBe(2); // enclosing circle: Me
    expect(marksInARow(`${acute}${String.fromCharCode(0xd800)}${acute}`)).toBe(1); // a lone surrogate ends a run
    expect(marksInARow('😀👍🏽')).toBe(0); // an emoji modifier is a symbol (Sk), not a mark
    expect(chatCheck(`a${acute.repeat(CHAT_MAX_MARKS)}`).over).toBeNull(); // UAX #15's 30
    expect(chatCheck(`a${acute.repeat(CHAT_MAX_MARKS + 1)}`).over).toEqual({ kind: 'marks', limit: 30 });
    expect(chatCheck(`a${acute.repeat(CHAT_MAX_MARKS)}b${acute.repeat(CHAT_MAX_MARKS)}`).over).toBeNull();
  });
  it('names the first limit broken in the server order: length, marks, lines', () => {
    const zalgo = `a${'\u0301'.repeat(31)}`;
    expect(chatCheck(`${zalgo}${'\n'.repeat(30)}x`).over?.kind).toBe('marks');
    expect(chatCheck(`${zalgo}${'x'.repeat(1000)}`).over?.kind).toBe('too_long');
  });
  it('says it in the server words', () => {
    expect(tIn('chatTooManyLines', 'tr', { limit: 20 })).toBe('Mesaj en çok 20 satır olur');
    expect(tIn('chatTooManyLines', 'en', { limit: 20 })).toBe('A message has at most 20 lines');
    expect(tIn('chatMarks', 'tr', { limit: 30 })).toBe('Mesajda bir harfin üstünde art arda en çok 30 işaret olur');
    expect(tIn('chatMarks', 'en', { limit: 30 })).toBe('A message holds at most 30 combining marks in a row on a letter');
  });
});
