// The calls of one event-loop turn to one isolate of a plugin that cannot reach the network (`allow_hosts: []`),
// started with one isolated-vm call instead of one each, and when the isolate's own thread is quiet
// (thread-activity.ts) run right here on the gateway thread. An async isolated-vm call costs the gateway thread a
// fixed price (scheduling on the isolate's thread, waking it, copying, settling its promise) whatever the plugin
// does, and the call waits for that thread to get a CPU; for an offline lookup that is most of the call. A batch on
// the gateway thread costs the lookup itself plus one small price per batch, and the isolate's thread sleeps
// (figures: docs/performance.md "Costs cited by the code").
// On the gateway thread a batch gets SYNC_BUDGET_MS: one that runs past it (or fails as a whole) is stopped, its
// calls run again alone on the isolate's thread with their own deadlines, and this isolate stays off the gateway
// thread for HOLD_OFF_MS, so a plugin that computes for long costs the event loop one budget per hold-off.
// Either way the isolate answers a batch once its calls have settled (on its thread: or a round trip through the
// host's event loop has come back, bridge.ts): a call still waiting is left out and runs alone, so no call holds
// the others. Plugins that fetch are not batched: most of their calls would wait on an upstream and run twice.
// Anything unusual is left to the one-call path, which already tells every failure apart: a call whose value
// cannot be copied out, a value that is not an Error thrown, and every failure of the batch itself (a synchronous
// timeout, the isolate disposed or out of memory) run that call, or all of them, again alone. Plugins are
// read-only lookups, so running a call again is safe; the isolate pool re-runs innocent calls the same way.
import type ivm from 'isolated-vm';
import { atTurnEnd } from '../kernel/turn-end.js';
import type { ThreadActivity } from './thread-activity.js';

/**
 * What one call passes to the isolate's `invoke` (core/sandbox/bridge.ts): its options, or null when the isolate
 * already holds them under `optionsId` (kept-options.ts).
 */
export type CallArgs = [
  callId: number,
  input: unknown,
  options: unknown,
  operation: string,
  pin: string | null,
  optionsId: number,
];

/**
 * Per call: its value as JSON text (none when the value was undefined), or the Error it rejected with (as text), or
 * nothing the batch can pass on (bridge.ts `settled`).
 */
export type ManyResult = [ok: true, json?: string] | [ok: false, error?: { message: string; stack: string }];
export type ManyFn = (calls: CallArgs[]) => Promise<ManyResult[]>;
export type BeginFn = (calls: CallArgs[]) => void;
export type CollectFn = () => ManyResult[];

/** The bootstrap's batch entry points (bridge.ts). */
export interface BatchEntry {
  many: ivm.Reference<ManyFn>;
  begin: ivm.Reference<BeginFn>;
  collect: ivm.Reference<CollectFn>;
}

/** The longest a batch may hold the gateway thread; a phone lookup batch takes well under a millisecond. */
export const SYNC_BUDGET_MS = 20;
/** How long an isolate whose batch ran past the budget (or failed) stays off the gateway thread. */
export const HOLD_OFF_MS = 10_000;

interface Queued {
  args: CallArgs;
  timeoutMs: number;
  alone: () => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

export class IsolateBatch {
  private queued: Queued[] = [];
  /** Batches of two or more calls sent to the isolate's thread as one (diagnostics and tests). */
  batchesSent = 0;
  /** Batches (of any size) run on the gateway thread (diagnostics and tests). */
  batchesHere = 0;

  constructor(
    private readonly entry: BatchEntry,
    private readonly activity: ThreadActivity,
  ) {
    // `collect` with nothing begun does nothing (bridge.ts).
    activity.useBarrier(() => entry.collect.apply(undefined, [], { result: { copy: true } }));
  }

  /**
   * The call's value, as `alone()` (the call on its own) would give it; started at the end of this turn with the
   * other calls of the turn. `timeoutMs` bounds its synchronous part, as for a call on its own.
   */
  run(args: CallArgs, timeoutMs: number, alone: () => Promise<unknown>): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.queued.push({ args, timeoutMs, alone, resolve, reject });
      if (this.queued.length === 1) atTurnEnd(() => this.flush());
    });
  }

  private flush(): void {
    const batch = this.queued;
    this.queued = [];
    if (this.activity.quiet) this.runHere(batch);
    else if (!this.activity.afterBarrier(() => (this.activity.quiet ? this.runHere(batch) : this.onThread(batch))))
      this.onThread(batch);
  }

  /** On the isolate's thread: one call alone, several as one `many`. */
  private onThread(batch: Queued[]): void {
    if (batch.length === 1) {
      this.runAlone(batch[0]);
      return;
    }
    this.batchesSent++;
    let results: Promise<unknown>;
    try {
      results = this.activity.track(() =>
        this.entry.many.apply(undefined, [batch.map((q) => q.args)], {
          arguments: { copy: true },
          result: { promise: true, copy: true },
          timeout: shortest(batch, Number.POSITIVE_INFINITY),
        }),
      );
    } catch {
      for (const q of batch) this.runAlone(q);
      return;
    }
    results.then(
      (all) => this.deliver(batch, all as ManyResult[]),
      () => {
        for (const q of batch) this.runAlone(q);
      },
    );
  }

  /** On the gateway thread: the isolate's thread is idle, so the lock is free and the budget bounds the wait. */
  private runHere(batch: Queued[]): void {
    try {
      this.entry.begin.applySync(undefined, [batch.map((q) => q.args)], {
        arguments: { copy: true },
        timeout: shortest(batch, SYNC_BUDGET_MS),
      });
    } catch {
      // Past its budget, or the isolate failed under it: each call again alone, on the isolate's thread.
      this.activity.holdOff(HOLD_OFF_MS);
      for (const q of batch) this.runAlone(q);
      return;
    }
    this.batchesHere++;
    let all: ManyResult[];
    try {
      all = this.entry.collect.applySync(undefined, [], { result: { copy: true } });
    } catch {
      for (const q of batch) this.runAlone(q); // a value that cannot be copied out: each call tells its own
      return;
    }
    this.deliver(batch, all);
  }

  private deliver(batch: Queued[], all: ManyResult[]): void {
    batch.forEach((q, i) => {
      const r = all[i];
      if (r?.[0] === true) q.resolve(r[1] === undefined ? undefined : JSON.parse(r[1]));
      else if (r?.[1]) q.reject(Object.assign(new Error(r[1].message), { stack: r[1].stack }));
      else this.runAlone(q);
    });
  }

  private runAlone(q: Queued): void {
    try {
      this.activity.track(q.alone).then(q.resolve, q.reject);
    } catch (err) {
      q.reject(err);
    }
  }
}

function shortest(batch: Queued[], cap: number): number {
  let timeout = cap;
  for (const q of batch) timeout = Math.min(timeout, q.timeoutMs);
  return timeout;
}
