// Server-rendered share pages embed their data as `window.NAME = {...}</script>` (Kuaishou INIT_STATE,
// Xiaohongshu __INITIAL_STATE__, Douyin _ROUTER_DATA). The blob is a JS object literal, not always JSON:
// Xiaohongshu writes bare `undefined`, so it is turned into `null` before JSON.parse. Strings are skipped while
// doing so, because a value can legitimately be the *string* "undefined" (XHS's expired-link marker).

export type StateScriptResult =
  | { ok: true; value: unknown }
  | { ok: false; reason: 'missing' | 'invalid'; detail: string };

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The raw text assigned to `window.<name>` up to the closing `</script>` (trailing `;` removed), or null when
 * the page has no such assignment (anti-bot page, login wall, changed layout).
 */
export function extractStateScript(html: string, name: string): string | null {
  const re = new RegExp(`window\\.${escapeRegExp(name)}\\s*=\\s*([\\s\\S]*?)<\\/script>`);
  const m = re.exec(html);
  if (!m) return null;
  const text = m[1].trim().replace(/;\s*$/, '').trim();
  return text === '' ? null : text;
}

// A double-quoted JSON string (with escapes) or a bare `undefined` token. Single-quoted strings do not occur
// in these blobs (they are serialised with JSON.stringify plus undefined), so they are not handled.
const STRING_OR_UNDEFINED = /"(?:[^"\\]|\\.)*"|\bundefined\b/g;

/** Replaces bare `undefined` tokens outside string literals with `null`. */
export function undefinedToNull(text: string): string {
  return text.replace(STRING_OR_UNDEFINED, (tok) => (tok === 'undefined' ? 'null' : tok));
}

/** Finds `window.<name> = ...</script>` and parses it, tolerating bare `undefined`. */
export function parseStateScript(html: string, name: string): StateScriptResult {
  const raw = extractStateScript(html, name);
  if (raw === null) return { ok: false, reason: 'missing', detail: `page has no window.${name}` };
  try {
    return { ok: true, value: JSON.parse(undefinedToNull(raw)) as unknown };
  } catch (err) {
    return { ok: false, reason: 'invalid', detail: `window.${name} is not parseable: ${(err as Error).message}` };
  }
}
