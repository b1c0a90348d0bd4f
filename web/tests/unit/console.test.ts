// The console (issue 26): a season found from what ops paste, and its staff token never
// written to storage (kept in the tab's memory only: ui/console.ts).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { seasonIdOf } from '../../src/api/console';

const SRC = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');
const ID = '0123456789abcdef0123456789abcdef';

describe('seasonIdOf', () => {
  it('reads an id, a report link or an API URL', () => {
    expect(seasonIdOf(ID)).toBe(ID);
    expect(seasonIdOf(`https://seksenbir.example/#/s/${ID}`)).toBe(ID);
    expect(seasonIdOf(` https://seksenbir.example/v1/seasons/${ID}/reports `)).toBe(ID);
    expect(seasonIdOf('trial-season_1')).toBe('trial-season_1');
    expect(seasonIdOf('no id here, sorry')).toBeNull();
    expect(seasonIdOf('')).toBeNull();
  });
});

describe('the staff token', () => {
  it('is never put in storage by any console module', () => {
    for (const name of ['ui/console.ts', 'ui/console_divan.ts', 'ui/console_parts.ts', 'api/console.ts']) {
      const text = readFileSync(join(SRC, name), 'utf8');
      expect(text).not.toMatch(/localStorage|sessionStorage|indexedDB|document\.cookie/);
    }
  });
});
