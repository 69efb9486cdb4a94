// `charge_when` compiled once per load. JSONata's evaluate is asynchronous and costs ~17-20 us a call here, which a
// billed call of a lookup plugin cannot afford; the common forms (`field = "x"`, `field != "x"`, a.b.c paths,
// strings, numbers, true/false/null) are therefore compiled to a plain comparison, and anything else runs in
// JSONata. Both read the same: the answer is charged unless the rule gives false.
import jsonata from 'jsonata';

export type ChargeRule = (data: unknown) => boolean | Promise<boolean>;

const SIMPLE =
  /^\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*(=|!=)\s*(?:"([^"\\]*)"|'([^'\\]*)'|(true|false|null)|(-?\d+(?:\.\d+)?))\s*$/;

function pathValue(data: unknown, path: string[]): unknown {
  let v = data;
  for (const p of path) {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined;
    v = (v as Record<string, unknown>)[p];
  }
  return v;
}

export function compileChargeRule(source: string): ChargeRule {
  const m = SIMPLE.exec(source);
  if (m) {
    const path = m[1].split('.');
    const literal: unknown =
      m[3] ?? m[4] ?? (m[5] !== undefined ? JSON.parse(m[5]) : m[6] !== undefined ? Number(m[6]) : undefined);
    const equal = m[2] === '=';
    // JSONata: a comparison with a missing field is false, whichever operator.
    return (data) => {
      const v = pathValue(data, path);
      if (v === undefined) return false;
      return equal ? v === literal : v !== literal;
    };
  }
  const expr = jsonata(source);
  return async (data) => (await expr.evaluate(data)) !== false;
}

/** `fallback_when`: the upstreams are asked only when it gives true (a missing field or any other value: not). */
export function compileFallbackRule(source: string): (data: unknown) => Promise<boolean> {
  const expr = jsonata(source);
  return async (data) => (await expr.evaluate(data)) === true;
}
