// application/x-www-form-urlencoded, written out because the isolate has no URLSearchParams.
// Follows the WHATWG serializer (what URLSearchParams and every form parser expect): keep A-Z a-z 0-9 * - . _,
// space becomes "+", everything else is %XX of its UTF-8 bytes. encodeURIComponent is plain ECMAScript and
// does the UTF-8 part; it leaves ! ' ( ) ~ alone, so those are finished here.

/** One value, form-encoded. */
export function formEncode(value: string): string {
  return encodeURIComponent(value)
    .replace(/[!'()~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

/** Fields in the given order (order matters to nobody but makes requests reproducible in tests). */
export function formBody(fields: ReadonlyArray<readonly [string, string]>): string {
  return fields.map(([k, v]) => `${formEncode(k)}=${formEncode(v)}`).join('&');
}

/** A query string for a GET URL (same encoding; servers decode "+" in queries as a space too). */
export function queryString(fields: ReadonlyArray<readonly [string, string]>): string {
  return formBody(fields);
}
