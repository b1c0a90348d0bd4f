// Keys brought from another device (docs/web.md "Keys from another device"): a season key
// (`sb1.<season>.<seat>.<secret>`) names its season and seat, a season-admin key
// (`sba1.<season>.<secret>`) its season, so pasting the text the token screen showed (or its QR
// code read) is enough. The shapes are the server's (shared/app/access/tokens.py); the server
// still decides whether a key is good.
export interface BeyKey {
  season: string;
  seat: number;
  token: string;
}

export interface AdminKey {
  season: string;
  token: string;
}

export interface Keys {
  bey: BeyKey[];
  admin: AdminKey[];
}

const BEY = /^sb1\.([0-9a-f]{32})\.([1-9][0-9]?)\.[A-Za-z0-9_-]{32}$/;
const ADMIN = /^sba1\.([0-9a-f]{32})\.[A-Za-z0-9_-]{32}$/;

/** The keys in `text` (separated by white space), each once; `null` when a word is no key. */
export function parseKeys(text: string): Keys | null {
  const keys: Keys = { bey: [], admin: [] };
  const seen = new Set<string>();
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    if (seen.has(word)) continue;
    seen.add(word);
    const b = BEY.exec(word);
    const a = b ? null : ADMIN.exec(word);
    if (b?.[1] && b[2] && Number(b[2]) <= 19) keys.bey.push({ season: b[1], seat: Number(b[2]), token: word });
    else if (a?.[1]) keys.admin.push({ season: a[1], token: word });
    else return null;
  }
  return keys.bey.length + keys.admin.length > 0 ? keys : null;
}

/**
 * The address the token dialog's QR code holds: the app at `base` with the key in the fragment
 * (`#/k/<key>`), so a phone's camera opens the seat at once. A fragment never reaches the server
 * (no access log, no Referer); the app takes it out of the address as soon as it reads it.
 */
export function keyLink(base: string, token: string): string {
  return `${base.replace(/#.*$/, '')}#/k/${encodeURIComponent(token)}`;
}

/** The keys a `#/k/…` address carries, else `null`. */
export function keysFromHash(hash: string): Keys | null {
  const m = /^#\/k\/(.+)$/.exec(hash);
  if (!m?.[1]) return null;
  try {
    return parseKeys(decodeURIComponent(m[1]));
  } catch {
    return null; // a malformed escape
  }
}
