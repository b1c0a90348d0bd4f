import { describe, expect, it } from 'vitest';
import { CHAT_MAX, chatLength, codePoints, outgoing } from '../../src/logic/chat_text';

describe("a chat message's length, as the server counts it (R-15.2)", () => {
  it('counts an emoji beyond the BMP once, as Python does, not twice as maxlength did', () => {
    expect('😀'.length).toBe(2);
    expect(codePoints('😀')).toBe(1);
    expect(codePoints('👍🏽')).toBe(2); // a base and a modifier: two code points, two characters
    expect(codePoints('ş')).toBe(1);
    expect(codePoints(`a${String.fromCharCode(0xd800)}b`)).toBe(3); // a lone surrogate: one
  });
  it('takes 1,000 emoji, which maxlength=1000 cut at 500, and refuses 1,001', () => {
    expect(chatLength('😀'.repeat(CHAT_MAX))).toEqual({ length: 1000, over: false });
    expect(chatLength('😀'.repeat(CHAT_MAX + 1))).toEqual({ length: 1001, over: true });
    expect(chatLength('ş'.repeat(CHAT_MAX + 1)).over).toBe(true);
  });
  it('counts what is sent: line breaks as \\n, the ends trimmed', () => {
    expect(outgoing('  a\r\nb\rc \n')).toBe('a\nb\nc');
    expect(chatLength(`  ${'x'.repeat(CHAT_MAX)}  `)).toEqual({ length: 1000, over: false });
    expect(chatLength('a\r\nb').length).toBe(3);
  });
});
