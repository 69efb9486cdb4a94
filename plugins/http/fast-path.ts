// A direct evaluator for the plain JSONata most upstream rules are made of: field paths (`body.data.city`),
// literals, `=` `!=` `<` `<=` `>` `>=`, `and` `or`, `in [literals]`, parentheses and object constructors with
// literal keys.
// JSONata evaluates every node through an async function with its own frame and sequence arrays, so three such
// rules cost a configured upstream more CPU per call than its fetch. The direct form is built once per compiled
// expression (compile.ts) from JSONata's own parse tree and gives JSONata's answer or MISS: whenever a value on
// the way is one whose JSONata meaning is more than the plain one (an array, which JSONata maps and flattens;
// a comparison of mixed or non-scalar types, which JSONata refuses; an object JSONata takes for a function), it
// answers MISS and the caller evaluates with JSONata itself, so errors and edge cases stay JSONata's.

/** "Ask JSONata": the value was outside what the direct form knows. */
export const MISS: unique symbol = Symbol('miss');
export type Direct = (ctx: unknown) => unknown;

interface Node {
  type: string;
  value?: unknown;
  steps?: Node[];
  lhs?: Node | Node[][];
  rhs?: Node;
  expressions?: Node[];
}

/** Node keys that change nothing about a node's meaning; any other key (a predicate, a stage, a group) does. */
const PLAIN_KEYS: ReadonlySet<string> = new Set(['type', 'value', 'position', 'steps', 'lhs', 'rhs', 'expressions']);
const plainNode = (n: object): boolean => Object.keys(n).every((k) => PLAIN_KEYS.has(k));

/** JSONata's lookup refuses these (isFunction); such data goes to JSONata. */
const looksLikeFunction = (o: Record<string, unknown>): boolean =>
  o._jsonata_function === true || o._jsonata_lambda === true;

const hasOwn = Object.prototype.hasOwnProperty;

function path(names: string[]): Direct {
  return (ctx) => {
    let cur = ctx;
    for (const name of names) {
      if (cur === null || typeof cur !== 'object') return undefined;
      if (Array.isArray(cur) || looksLikeFunction(cur as Record<string, unknown>)) return MISS;
      cur = hasOwn.call(cur, name) ? (cur as Record<string, unknown>)[name] : undefined;
    }
    return Array.isArray(cur) ? MISS : cur;
  };
}

/** JSONata's effective boolean, for the values whose one is plain. */
function truth(v: unknown): boolean | typeof MISS {
  if (v === undefined || v === null) return false;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') return v.length > 0;
  if (typeof v === 'number') return v !== 0;
  return MISS;
}

const scalar = (v: unknown): boolean => v === null || typeof v !== 'object';

function binary(op: string, l: Direct, r: Direct): Direct | null {
  if (op === 'and' || op === 'or') {
    return (ctx) => {
      const a = truth(l(ctx));
      if (a === MISS) return MISS;
      if (op === 'and' ? !a : a) return a;
      return truth(r(ctx));
    };
  }
  if (op === '=' || op === '!=') {
    return (ctx) => {
      const a = l(ctx);
      if (a === MISS) return MISS;
      const b = r(ctx);
      if (b === MISS) return MISS;
      if (a === undefined || b === undefined) return false;
      if (!scalar(a) || !scalar(b)) return MISS; // JSONata compares objects deeply
      return op === '=' ? a === b : a !== b;
    };
  }
  const compare = COMPARE.get(op);
  if (!compare) return null;
  return (ctx) => {
    const a = l(ctx);
    if (a === MISS) return MISS;
    const b = r(ctx);
    if (b === MISS) return MISS;
    const both = typeof a === typeof b && (typeof a === 'number' || typeof a === 'string');
    return both ? compare(a as number, b as number) : MISS; // undefined, mixed or non-scalar: JSONata's rules
  };
}

const COMPARE = new Map<string, (a: number, b: number) => boolean>([
  ['<', (a, b) => a < b],
  ['<=', (a, b) => a <= b],
  ['>', (a, b) => a > b],
  ['>=', (a, b) => a >= b],
]);

/** `x in ["a", "b"]` (or one literal): JSONata tests each with ===. */
function includes(l: Direct, list: Node): Direct | null {
  const items = list.type === 'unary' && list.value === '[' ? list.expressions : [list];
  if (!items || !plainNode(list)) return null;
  const values: unknown[] = [];
  for (const n of items) {
    if (!plainNode(n) || !LITERAL.has(n.type)) return null;
    values.push(n.value);
  }
  return (ctx) => {
    const a = l(ctx);
    if (a === MISS) return MISS;
    if (a === undefined) return false;
    return values.includes(a);
  };
}

const LITERAL: ReadonlySet<string> = new Set(['string', 'number', 'value']);

/** `{ "k": expr, ... }` over one object: keys in order, undefined values left out (JSONata's group of one). */
function object(pairs: Node[][]): Direct | null {
  const keys: string[] = [];
  const values: Direct[] = [];
  for (const pair of pairs) {
    const [k, v] = pair;
    if (pair.length !== 2 || !plainNode(k) || k.type !== 'string' || typeof k.value !== 'string') return null;
    // A repeated key is JSONata's error D1009; __proto__ would be a prototype, not a field.
    if (keys.includes(k.value) || k.value === '__proto__') return null;
    const d = direct(v);
    if (!d) return null;
    keys.push(k.value);
    values.push(d);
  }
  return (ctx) => {
    if (ctx === undefined || Array.isArray(ctx)) return MISS;
    const out: Record<string, unknown> = {};
    for (let i = 0; i < keys.length; i++) {
      const v = values[i](ctx);
      if (v === MISS) return MISS;
      if (v !== undefined) out[keys[i]] = v;
    }
    return out;
  };
}

/** The direct form of a JSONata parse tree (`expression.ast()`), or null when it is more than the plain subset. */
export function direct(n: Node | undefined): Direct | null {
  if (!n || typeof n !== 'object' || !plainNode(n)) return null;
  if (LITERAL.has(n.type)) {
    const v = n.value;
    return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || v === null ? () => v : null;
  }
  if (n.type === 'path') {
    const names: string[] = [];
    for (const s of n.steps ?? []) {
      if (!plainNode(s) || s.type !== 'name' || typeof s.value !== 'string') return null;
      names.push(s.value);
    }
    return names.length ? path(names) : null;
  }
  if (n.type === 'binary' && typeof n.value === 'string' && n.lhs && !Array.isArray(n.lhs) && n.rhs) {
    const l = direct(n.lhs);
    if (!l) return null;
    if (n.value === 'in') return includes(l, n.rhs);
    const r = direct(n.rhs);
    return r ? binary(n.value, l, r) : null;
  }
  if (n.type === 'unary' && n.value === '{' && Array.isArray(n.lhs)) return object(n.lhs);
  // Parentheses around one expression: its value.
  if (n.type === 'block' && n.expressions?.length === 1) return direct(n.expressions[0]);
  return null;
}
