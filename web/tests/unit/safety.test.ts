// The client never turns data into markup or code (docs/web.md, Safety; the shell's CSP is the
// second wall): no innerHTML and its kin, no eval, no string timers anywhere in src/.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');
const FORBIDDEN = [
  /\.innerHTML\b/,
  /\.outerHTML\b/,
  /insertAdjacentHTML/,
  /document\.write/,
  /\beval\s*\(/,
  /new\s+Function\s*\(/,
  /setTimeout\(\s*['"`]/,
  /setInterval\(\s*['"`]/,
  /createContextualFragment/,
  /DOMParser/,
];

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'generated' ? [] : sources(path);
    return /\.ts$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

describe('text is always text', () => {
  it('no source makes markup or code from a string', () => {
    const files = sources(SRC);
    expect(files.length).toBeGreaterThan(5);
    const found = files.flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .flatMap((line, i) => FORBIDDEN.filter((re) => re.test(line)).map(() => `${f}:${i + 1}: ${line.trim()}`)),
    );
    expect(found).toEqual([]);
  });
});

describe('English counts', () => {
  // found from outside ("1 units"): an English text says a count's noun through
  // {n:one|many} (i18n.ts fill), never as a fixed plural after the number
  it('no English text puts a fixed plural noun after a count', () => {
    const found = sources(SRC).flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .flatMap((line, i) => (/\{\w+\} (units|seats|orders|provinces|cards)\b/.test(line) ? [`${f}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(found).toEqual([]);
  });
});
