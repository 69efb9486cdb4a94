// The state of one /api call as it moves through the stages (core/pipeline/index.ts holds their order).
import type { IncomingHttpHeaders } from 'node:http';
import type { KeyIdentity } from '../accounts/api-keys.js';
import type { CallHold } from '../billing/money.js';
import type { PlanGrant } from '../billing/plans.js';
import type { ApiAnswer } from '../http/api-edge.js';
import type { Denial } from '../http/errors.js';
import type { MaybePromise } from '../kernel/maybe-promise.js';
import type { Operation, Registry } from '../registry/registry.js';
import type { Services } from '../services.js';
import type { RateDecision } from '../state/shared-state.js';

export interface ApiCall {
  requestId: string;
  startedNs: bigint;
  method: string;
  path: string;
  ip: string;
  headers: IncomingHttpHeaders;
  query: Record<string, unknown>;
  body: unknown;
  /** How the body arrived; JSON keeps its types, query strings and forms are coerced by the schema. */
  bodyKind: 'none' | 'json' | 'form' | 'unsupported';
  /** The config snapshot this call runs on from start to end, whatever reloads happen meanwhile. */
  registry: Registry;
  identity?: KeyIdentity;
  operation?: Operation;
  pathParams: Record<string, string>;
  input?: Record<string, unknown>;
  idempotency?: { key: string; hash: string; replay?: { status: number; body: string } };
  rate?: RateDecision;
  /** Price of this call in micro-TOKEN once decided; 0 when free. */
  price: number;
  freeReason: string | null;
  /** Plan quota taken for this call (kept or given back by its reservation entry, price.ts). */
  planGrant?: PlanGrant;
  cacheKey?: string;
  cached: boolean;
  /** The price reserved before the plugin runs (billing/money.ts): a row on PostgreSQL, in memory on SQLite. */
  hold?: CallHold;
  /** No hold: the plugin costs nothing to run, so the price is placed and captured in one step after it (hold.ts). */
  chargeAfterRun?: boolean;
  /** The result as JSON text, serialised once (run-plugin or the cache) and reused for the body and the cache. */
  dataJson?: string;
  /** What capture returned (settle.ts); NOT_CAPTURED until then, and for every call it did not charge or log. */
  captured: Captured;
  /** Cache TTL for this result (plugin's override or the operation's), seconds. */
  cacheTtl?: number;
  pluginMs?: number;
  /** The configured upstream that answered (operations.yaml `upstreams:`) and what it cost us, micro-TOKEN. */
  upstream?: string;
  costMicro?: number;
  /**
   * A canary's probe of one configured upstream (core/health/upstream-canary.ts): only it is tried, even while out
   * of rotation, and the circuit is left to the canary's status.
   */
  pinUpstream?: string;
  /**
   * The same for one of the plugin's own providers (operations.yaml `canary.providers`): passed to the plugin as
   * host.pin, which then tries that provider alone instead of failing over.
   */
  pinProvider?: string;
  /** charge_when said false for the answer this call's run made (a cache hit decides from the text). */
  chargeFree?: boolean;
  /** The run's answer as an object, only while charge_when looks at it (run-plugin.ts). */
  sharedData?: unknown;
  /** What the call took before its outcome was known, settled in one place (reservations.ts). */
  reservations: Reservation[];
  headersOut: Record<string, string>;
  /**
   * A canary's probe (core/health/canary-runner.ts builds these; no HTTP request can set it): free, never read from
   * or written to the cache, marked in the call log and left out of the call metrics.
   */
  canary: boolean;
}

/** What capture (settle.ts) did: the one value it returns instead of setting flags on the call. */
export interface Captured {
  /** micro-TOKEN the call paid (0 when free or failed). */
  readonly charged: number;
  /** The balance after the charge, when the capture (or a read, balance-by-key.ts) knows it. */
  readonly balanceAfter: number | undefined;
  /** The success body, when it had to be fixed inside the capture transaction (stored for an idempotent replay). */
  readonly bodyOut: string | undefined;
  /** The call-log row was written with the charge (same transaction), so the buffered writer must skip it. */
  readonly logged: boolean;
}

/** Shared by every call not (yet) captured: nothing to allocate per call. */
export const NOT_CAPTURED: Captured = Object.freeze({
  charged: 0,
  balanceAfter: undefined,
  bodyOut: undefined,
  logged: false,
});

// What each stage establishes, as types: a later stage states what it needs and reads it without a check or a
// `!`. BEFORE_CHARGE (index.ts) is checked at compile time to run them in an order that provides it (Ordered).

/** After authenticate: the caller's key. */
export type Authenticated = ApiCall & { identity: KeyIdentity };
/** After resolveOperation: the operation called. */
export type Resolved = Authenticated & { operation: Operation };
/** After validateInput: the input, validated by the operation's schema. */
export type Validated = Resolved & { input: Record<string, unknown> };
/** After readCache: the result's cache key (also its single flight's). */
export type Keyed = Validated & { cacheKey: string };

/**
 * A stage either lets the call go on (undefined) or ends it with a Denial. One with nothing to wait for answers
 * directly, without a promise (runStages, index.ts, awaits only promises). `Needs`: what it reads, established by
 * the stages before it; `Adds`: what it establishes for the stages after it (a type only, never set at run time).
 */
export interface Stage<Needs extends ApiCall = ApiCall, Adds = unknown> {
  (call: Needs, services: Services): MaybePromise<Denial | undefined>;
  readonly establishes?: Adds;
}

/**
 * What a list of stages has established once it ran, from `Have` on; a stage whose needs the stages before it did not
 * provide makes it `{ misplaced: Stage }` instead, which nothing accepts (a compile error at the list).
 */
export type Ordered<L extends readonly unknown[], Have> = L extends readonly [infer First, ...infer Rest]
  ? First extends Stage<infer Needs, infer Adds>
    ? [Have] extends [Needs]
      ? Ordered<Rest, Have & Adds>
      : { misplaced: First }
    : never
  : Have;

/** How a call ended, as its reservations see it when they are settled (reservations.ts). */
export interface Outcome {
  /** The call succeeded (captured, or free) and is answered 200. */
  ok: boolean;
  /** micro-TOKEN the call paid (0 when free or failed). */
  charged: number;
  /** The answer, for entries settled after it. */
  status?: number;
  body?: string;
}

/**
 * How a call ended, carried through the after-charge stages (index.ts): one object per call. The reservations see
 * it as their Outcome; `status`, `body` and `answer` are there once respond has run.
 */
export interface CallEnd extends Outcome {
  denial: Denial | undefined;
  status: number;
  body: string;
  answer: ApiAnswer | undefined;
}

/** A stage of the after-charge phase: runs for every call, refused or not, and never refuses. */
export type AfterStage = (call: ApiCall, services: Services, end: CallEnd) => MaybePromise<void>;

export interface Reservation {
  /** For the log when settling fails. */
  name: string;
  /** Settle once the answer is built instead of before (it needs status and body). */
  afterAnswer?: boolean;
  /** The call succeeded: keep what was taken. */
  keep(outcome: Outcome): MaybePromise<void>;
  /** The call failed: give it back. */
  giveBack(outcome: Outcome): MaybePromise<void>;
}
