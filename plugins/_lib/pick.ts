// Typed reads from parsed upstream JSON. Upstream shapes change without notice, so every read is checked and a
// missing or mistyped field becomes null instead of a TypeError deep inside a handler.

export type JsonRecord = Record<string, unknown>;

export function isRecord(v: unknown): v is JsonRecord {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Walks object keys and array indices; null as soon as a step does not exist. */
export function at(v: unknown, ...path: Array<string | number>): unknown {
  let cur: unknown = v;
  for (const key of path) {
    if (typeof key === 'number') {
      if (!Array.isArray(cur) || key >= cur.length) return null;
      cur = cur[key];
    } else {
      if (!isRecord(cur) || !Object.hasOwn(cur, key)) return null;
      cur = cur[key];
    }
  }
  return cur ?? null;
}

export function rec(v: unknown): JsonRecord | null {
  return isRecord(v) ? v : null;
}

/** A non-empty string, else null. */
export function str(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v : null;
}

/** An id that upstreams send as either a string or a number. */
export function idStr(v: unknown): string | null {
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return str(v);
}

/** A finite number (numeric strings accepted: some upstreams quote them), else null. */
export function num(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v)) return Number(v);
  return null;
}

export function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** Parses JSON without throwing. */
export function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}
