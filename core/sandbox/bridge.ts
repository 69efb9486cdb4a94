// The door between an isolate and the host. Host callbacks are ivm References/Callbacks handed to a bootstrap
// closure; they live only in that closure's scope, never on globalThis, because a leaked ivm object lets
// plugin code reach host objects (isolated-vm README, SECURITY). Every callback takes the call id first.
import { createHash, createHmac } from 'node:crypto';
import ivm from 'isolated-vm';
import { scrubSecrets } from '../kernel/redact.js';
import type { Resolver } from './address-policy.js';
import { AssetError, type AssetStore, assetPath } from './assets.js';
import { BUNDLE_GLOBAL } from './bundle.js';
import { type CallTable, signalOf } from './calls.js';
import type { HostFetchInit, HostFetchResponse, LogLevel, PluginManifest } from './contract.js';
import { DEFAULT_MAX_RESPONSE_BYTES, HostFetchError, hostFetch } from './host-fetch.js';
import { KEPT_OPTIONS_MAX, OPTIONS_MISSING } from './kept-options.js';
import type { LogBudget } from './log-budget.js';
import type { ThreadActivity } from './thread-activity.js';

/** A call that fires more requests than this is looping, not looking something up. */
export const MAX_FETCHES_PER_CALL = 64;
const MAX_LOG_MESSAGE = 2000;
const MAX_LOG_FIELDS = 4000;
const LEVELS: ReadonlySet<string> = new Set<LogLevel>(['debug', 'info', 'warn', 'error']);
const RESERVED_LOG_FIELDS = ['plugin', 'operation', 'request_id', 'level', 'time', 'message'];

export interface BridgeDeps {
  plugin: string;
  pluginDir: string;
  manifest: PluginManifest;
  calls: CallTable;
  assets: AssetStore;
  resolver: Resolver;
  fetchImpl?: typeof fetch;
  /** Shared by every isolate of the sandbox: per-call caps and per-key rate of host.log. */
  logBudget: LogBudget;
}

/** An error for the isolate: message only. A host stack would tell plugin code where the host lives. */
function isolateError(message: string): Error {
  const err = new Error(message);
  err.stack = `Error: ${message}`;
  return err;
}

function sanitizeInit(raw: unknown): HostFetchInit | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const r = raw as Record<string, unknown>;
  const init: HostFetchInit = {};
  if (typeof r.method === 'string') init.method = r.method;
  if (typeof r.body === 'string') init.body = r.body;
  if (r.redirect === 'manual' || r.redirect === 'follow') init.redirect = r.redirect;
  if (typeof r.timeout_ms === 'number' && r.timeout_ms > 0) init.timeout_ms = r.timeout_ms;
  if (typeof r.headers === 'object' && r.headers !== null) {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(r.headers)) if (typeof v === 'string') headers[k] = v;
    init.headers = headers;
  }
  return init;
}

/**
 * The host-side callbacks for one isolate, in the order the bootstrap reads them ($0..$6). The async ones are
 * counted in `activity` from the isolate's call to the answer (thread-activity.ts).
 */
export function createBridge(deps: BridgeDeps, activity: ThreadActivity): Array<ivm.Reference | ivm.Callback> {
  const { plugin, manifest, calls } = deps;
  const counted =
    <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> =>
      activity.track(() => fn(...args));
  const maxResponseBytes = manifest.max_response_bytes ?? DEFAULT_MAX_RESPONSE_BYTES;

  // Async callbacks never reject: isolated-vm attaches its handler to the returned promise late, so a promise
  // that rejects early is reported as an unhandled rejection on the host (which ends the process). Failures
  // travel as values ({error} / a string) and the bootstrap throws them inside the isolate.
  const fetchRef = new ivm.Reference(
    counted(async (callId: unknown, url: unknown, init: unknown): Promise<HostFetchResponse | { error: string }> => {
      const call = calls.get(callId);
      if (!call) return { error: 'fetch refused: this call is over' };
      if (++call.fetchCount > MAX_FETCHES_PER_CALL) {
        return { error: `fetch refused: more than ${MAX_FETCHES_PER_CALL} fetches in one call` };
      }
      try {
        return await hostFetch(String(url), sanitizeInit(init), {
          plugin,
          allowHosts: manifest.hosts_from_operation ? (call.allowHosts ?? []) : manifest.allow_hosts,
          maxResponseBytes,
          resolver: deps.resolver,
          signal: signalOf(call),
          onPending: (delta) => void (call.pendingFetches += delta),
          fetchImpl: deps.fetchImpl,
        });
      } catch (err) {
        const e = err instanceof HostFetchError ? err : new HostFetchError('failed', (err as Error).message);
        call.fetchErrors.set(e.message, e.kind);
        return { error: e.message };
      }
    }),
  );

  // Sync, so a line is written before the call that logged it completes (and while its state still exists).
  const logCb = new ivm.Callback((callId: unknown, level: unknown, message: unknown, fields: unknown) => {
    const call = calls.get(callId);
    if (!call) return;
    const lvl = typeof level === 'string' && LEVELS.has(level) ? (level as LogLevel) : 'info';
    // Scrubbed here, at any depth: a plugin logging its upstream request would otherwise write the upstream's key.
    const extra: Record<string, unknown> =
      typeof fields === 'object' && fields !== null ? scrubSecrets({ ...fields }) : {};
    for (const k of RESERVED_LOG_FIELDS) delete extra[k]; // a plugin cannot pose as another plugin or request
    const text = String(message).slice(0, MAX_LOG_MESSAGE);
    const fieldsText = Object.keys(extra).length ? JSON.stringify(extra) : '';
    if (fieldsText.length > MAX_LOG_FIELDS) return void deps.logBudget.admit(call, Infinity); // counted as dropped
    if (!deps.logBudget.admit(call, text.length + fieldsText.length)) return;
    call.log[lvl](text, extra);
  });

  // Resolves to the bytes (copied out of the cached ExternalCopy) or to a string: the reason it failed.
  const assetRef = new ivm.Reference(
    counted(async (callId: unknown, name: unknown): Promise<ivm.Copy<ArrayBuffer> | string> => {
      const call = calls.get(callId);
      if (!call) return 'asset refused: this call is over';
      try {
        const path = assetPath(manifest, deps.pluginDir, String(name), call.options);
        if (path === null || !(await deps.assets.exists(path))) return `asset ${String(name)} is not available`;
        return (await deps.assets.bytes(path)).copyInto();
      } catch (err) {
        return err instanceof AssetError ? err.message : `asset ${String(name)} cannot be read`;
      }
    }),
  );

  const hasAssetRef = new ivm.Reference(
    counted(async (callId: unknown, name: unknown): Promise<boolean> => {
      const call = calls.get(callId);
      if (!call) return false;
      try {
        return await deps.assets.exists(assetPath(manifest, deps.pluginDir, String(name), call.options));
      } catch {
        return false; // undeclared: not available, same as absent
      }
    }),
  );

  const nowCb = new ivm.Callback(() => Date.now());

  // With a key (a string, possibly empty) it is an HMAC: signing schemes need both.
  const digestCb = new ivm.Callback((algorithm: unknown, data: unknown, encoding: unknown, key: unknown) => {
    if (algorithm !== 'md5' && algorithm !== 'sha1' && algorithm !== 'sha256') {
      throw isolateError(`digest: unsupported algorithm ${String(algorithm)}`);
    }
    if (encoding !== 'hex' && encoding !== 'base64')
      throw isolateError(`digest: unsupported encoding ${String(encoding)}`);
    const h = typeof key === 'string' ? createHmac(algorithm, key) : createHash(algorithm);
    return h.update(String(data), 'utf8').digest(encoding);
  });

  // Nothing to do: its promise in the isolate settles after a round trip through the host's event loop.
  const turnRef = new ivm.Reference(() => {
    activity.begin(); // its answer is a task on the isolate's thread
    activity.end();
  });

  return [fetchRef, logCb, assetRef, hasAssetRef, nowCb, digestCb, turnRef];
}

/**
 * Runs once per context after the bundle. Takes the plugin export off the global, removes what a lookup plugin
 * has no use for (WebAssembly compiles native-speed code, SharedArrayBuffer + Atomics give timers and blocking
 * waits, eval hides code from review), freezes the intrinsics and the global object, and returns `invoke` as the context's only entry point: a returned
 * reference, not a global, so plugin code cannot replace it.
 */
export const BOOTSTRAP = `
'use strict';
const hostFetch = $0, hostLog = $1, hostAsset = $2, hostHasAsset = $3, hostNow = $4, hostDigest = $5, hostTurn = $6;
const exported = typeof ${BUNDLE_GLOBAL} === 'object' && ${BUNDLE_GLOBAL} !== null ? ${BUNDLE_GLOBAL}.plugin : undefined;
if (!exported || typeof exported.run !== 'function') {
  throw new Error('handler.ts must export \`plugin\` with a run(input, host) method');
}
${BUNDLE_GLOBAL} = undefined;
for (const name of ['WebAssembly', 'SharedArrayBuffer', 'Atomics', 'eval']) {
  try { delete globalThis[name]; } catch (e) { /* non-configurable in some V8 builds: leave it */ }
}
const FETCH_OPTS = Object.freeze({ arguments: Object.freeze({ copy: true }), result: Object.freeze({ promise: true, copy: true }) });
const ASSET_OPTS = Object.freeze({ arguments: Object.freeze({ copy: true }), result: Object.freeze({ promise: true }) });
const deepFreeze = (v) => {
  if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const k of Object.keys(v)) deepFreeze(v[k]);
  }
  return v;
};
const plainFields = (fields) => {
  if (fields === undefined || fields === null) return undefined;
  try { return JSON.parse(JSON.stringify(fields)); } catch (e) { return { fields_error: String(e) }; }
};
const plainInit = (init) => {
  if (init === undefined || init === null || typeof init !== 'object') return undefined;
  const headers = init.headers && typeof init.headers === 'object' ? plainFields(init.headers) : undefined;
  return { method: init.method, headers, body: init.body, redirect: init.redirect, timeout_ms: init.timeout_ms };
};
// Freeze every intrinsic reachable from the global object (and the hidden ones: iterator, generator and async
// prototypes, %TypedArray%) plus the global object itself, once the bundle has loaded. One call's hostile
// upstream data can then no longer pollute Object.prototype, replace Array.prototype.push or leave a global
// behind for the next caller on this isolate. The plugin's own module-scope state (caches) is untouched.
// Frozen prototypes turn "obj.toString = f" into a TypeError (the override mistake); for the few properties
// code commonly assigns on instances (err.name, obj.constructor, ...) the prototype gets an accessor whose
// setter defines an own property on the instance instead, as SES does.
const hardenIntrinsics = () => {
  const { defineProperty, getOwnPropertyDescriptor, getPrototypeOf, freeze } = Object;
  const ownKeys = Reflect.ownKeys;
  const enableOverride = (proto, name) => {
    const desc = getOwnPropertyDescriptor(proto, name);
    if (!desc || !('value' in desc) || !desc.configurable) return;
    const value = desc.value;
    defineProperty(proto, name, {
      get() { return value; },
      set(v) {
        if (this === proto) throw new TypeError('Cannot assign to read only property ' + String(name) + ' of a frozen intrinsic');
        defineProperty(this, name, { value: v, writable: true, enumerable: true, configurable: true });
      },
      enumerable: desc.enumerable,
      configurable: false,
    });
  };
  const errors = [Error, EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError, AggregateError];
  for (const n of ['constructor', 'hasOwnProperty', 'isPrototypeOf', 'propertyIsEnumerable', 'toLocaleString', 'toString', 'valueOf']) enableOverride(Object.prototype, n);
  for (const n of ['constructor', 'name', 'toString']) enableOverride(Function.prototype, n);
  for (const E of errors) for (const n of ['constructor', 'message', 'name', 'toString']) enableOverride(E.prototype, n);
  for (const n of ['constructor', 'toString']) enableOverride(Array.prototype, n);
  enableOverride(Promise.prototype, 'constructor');
  const roots = [
    globalThis,
    getPrototypeOf(function* () {}), getPrototypeOf(async function () {}), getPrototypeOf(async function* () {}),
    getPrototypeOf([][Symbol.iterator]()), getPrototypeOf(new Map()[Symbol.iterator]()),
    getPrototypeOf(new Set()[Symbol.iterator]()), getPrototypeOf(''[Symbol.iterator]()),
    getPrototypeOf(/x/[Symbol.matchAll]('')), getPrototypeOf(Uint8Array),
  ];
  const seen = new Set();
  while (roots.length > 0) {
    const v = roots.pop();
    if (v === null || (typeof v !== 'object' && typeof v !== 'function') || seen.has(v)) continue;
    seen.add(v);
    freeze(v);
    roots.push(getPrototypeOf(v));
    for (const k of ownKeys(v)) {
      const d = getOwnPropertyDescriptor(v, k);
      if (!d) continue;
      if ('value' in d) roots.push(d.value);
      else roots.push(d.get, d.set);
    }
  }
};
hardenIntrinsics();
const unwrapFetch = (r) => { if (typeof r.error === 'string') throw new Error(r.error); return r; };
const unwrapAsset = (r) => { if (typeof r === 'string') throw new Error(r); return r; };
// Each operation's options arrive once and are kept frozen under their number (kept-options.ts); a call without
// them names them. Past KEPT_OPTIONS_MAX (configuration reloads) all are let go and come again when next needed.
const keptOptions = new Map();
const optionsOf = (options, id) => {
  if (options === null) return keptOptions.get(id);
  let kept = keptOptions.get(id);
  if (kept === undefined) {
    if (keptOptions.size >= ${KEPT_OPTIONS_MAX}) keptOptions.clear();
    keptOptions.set(id, (kept = deepFreeze(options)));
  }
  return kept;
};
const invoke = async function invoke(callId, input, options, operation, pin, optionsId) {
  const frozenOptions = optionsOf(options, optionsId);
  if (frozenOptions === undefined) return ${JSON.stringify(OPTIONS_MISSING)};
  const host = Object.freeze({
    ...(typeof pin === 'string' ? { pin } : {}),
    fetch: (url, init) => hostFetch.apply(undefined, [callId, String(url), plainInit(init)], FETCH_OPTS).then(unwrapFetch),
    log: (level, message, fields) => { hostLog(callId, String(level), String(message), plainFields(fields)); },
    options: frozenOptions,
    operation,
    asset: (name) => hostAsset.apply(undefined, [callId, String(name)], ASSET_OPTS).then(unwrapAsset),
    hasAsset: (name) => hostHasAsset.apply(undefined, [callId, String(name)], FETCH_OPTS),
    now: () => hostNow(),
    digest: (algorithm, data, encoding) => hostDigest(String(algorithm), String(data), String(encoding)),
    hmac: (algorithm, key, data, encoding) => hostDigest(String(algorithm), String(data), String(encoding), String(key)),
  });
  return exported.run(input, host);
};
// Several calls at once (core/sandbox/isolate-batch.ts): each one's value, or the Error it threw as text, or
// nothing (the host then runs that call alone). Answered when every call has settled, or when a round trip through
// the host's event loop has come back, whichever is first: calls that only compute have settled by then (the
// round trip's answer is a later task of this isolate); one still waiting (on an asset, or on a promise that never
// settles) is left out and runs alone, so it never holds the others of its batch.
// A value leaves as its JSON text, written here, inside the call and under its deadline: copying an object out runs
// its getters on the host's thread in the host's own copy, where no deadline applies (a plugin whose result had an
// endless getter held the gateway thread for good), and a string is copied in one piece where an object was rebuilt
// property by property. Only plain data goes this way: JSON would write a function, a symbol, a Date, a Map or a
// class instance differently from the copy the call alone makes (or refuses), and a BigInt or a cycle not at all,
// so those, rare in an outcome, are left to the call alone and answered exactly as it answers them.
const stringify = JSON.stringify;
const protoOf = Object.getPrototypeOf;
const isArray = Array.isArray;
const OBJECT_PROTO = Object.prototype;
// Plain: null, a boolean, a number or a string; an array; an object whose prototype is Object.prototype or null,
// down to MAX_PLAIN_DEPTH (a cycle or a deeper value is left to the call alone). Checked by this walk, then written
// by JSON.stringify alone: a replacer function makes the engine call back into script for every value, which cost
// twice the plain write (docs/performance.md).
const MAX_PLAIN_DEPTH = 64;
const isPlain = (v, depth) => {
  const type = typeof v;
  if (type !== 'object') return type === 'string' || type === 'number' || type === 'boolean' || type === 'undefined';
  if (v === null) return true;
  if (depth >= MAX_PLAIN_DEPTH) return false;
  if (isArray(v)) {
    for (let i = 0; i < v.length; i++) if (!isPlain(v[i], depth + 1)) return false;
    return true;
  }
  const proto = protoOf(v);
  if (proto !== OBJECT_PROTO && proto !== null) return false;
  for (const key in v) if (!isPlain(v[key], depth + 1)) return false;
  return true;
};
const plainText = (value) => (isPlain(value, 0) ? stringify(value) : null);
const settled = (p) => p.then((value) => {
  try {
    const text = plainText(value);
    return text === null ? [false] : text === undefined ? [true] : [true, text];
  } catch (_) { return [false]; }
}, (e) => {
  try { return e instanceof Error ? [false, { message: String(e.message), stack: String(e.stack) }] : [false]; }
  catch (_) { return [false]; }
});
const start = (calls) => {
  const results = calls.map(() => [false]);
  const all = Promise.all(calls.map((c, i) => settled(invoke(c[0], c[1], c[2], c[3], c[4], c[5])).then((r) => { results[i] = r; })));
  return { results, all };
};
const many = (calls) => {
  const { results, all } = start(calls);
  return Promise.race([all, hostTurn.apply(undefined, [])]).then(() => results.slice());
};
// The same on the host's thread (isolate-batch.ts): \`begin\` starts the calls, and the isolate runs its
// microtasks before the host's synchronous call returns, so every call that only computes has settled when
// \`collect\` hands over what \`many\` would (a call still waiting is left out and runs alone). \`collect\` with
// nothing begun is the host's barrier (thread-activity.ts): it does nothing.
let begun = [];
const begin = (calls) => { begun = start(calls).results; };
const collect = () => { const r = begun; begun = []; return r; };
return { invoke, many, begin, collect };
`;
