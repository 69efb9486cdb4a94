// The calls of one event-loop turn to one isolate of a plugin that cannot reach the network (`allow_hosts: []`),
// started with one isolated-vm call instead of one each. Each isolated-vm call costs the gateway thread ~10 us
// (scheduling on the isolate's thread, copying, settling its promise) whatever the plugin does, and for an
// offline lookup that is most of the call; a batch costs ~2 us per call (issue 14). The isolate answers a batch
// once its calls have settled or a round trip through the host's event loop has come back (bridge.ts): calls that
// only compute are in it, a call still waiting is not and runs alone, so no call holds the others. Plugins that
// fetch are not batched: most of their calls would wait on an upstream and be run twice.
// Anything unusual is left to the one-call path, which already tells every failure apart: a call whose value
// cannot be copied out, a value that is not an Error thrown, and every failure of the batch itself (a synchronous
// timeout, the isolate disposed or out of memory) run that call, or all of them, again alone. Plugins are
// read-only lookups, so running a call again is safe; the isolate pool re-runs innocent calls the same way.
import type ivm from 'isolated-vm';
import { atTurnEnd } from '../kernel/turn-end.js';

/** What one call passes to the isolate's `invoke` (core/sandbox/bridge.ts). */
export type CallArgs = [callId: number, input: unknown, options: unknown, operation: string];

/** Per call: its value, or the Error it rejected with (as text), or nothing the batch can pass on. */
export type ManyResult = [ok: true, value: unknown] | [ok: false, error?: { message: string; stack: string }];
export type ManyFn = (calls: CallArgs[]) => Promise<ManyResult[]>;

interface Queued {
  args: CallArgs;
  timeoutMs: number;
  alone: () => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

export class IsolateBatch {
  private queued: Queued[] = [];
  /** Batches of two or more calls sent into the isolate as one (diagnostics and tests). */
  batchesSent = 0;

  constructor(private readonly many: ivm.Reference<ManyFn>) {}

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
    if (batch.length === 1) {
      runAlone(batch[0]);
      return;
    }
    let timeout = Number.POSITIVE_INFINITY;
    for (const q of batch) timeout = Math.min(timeout, q.timeoutMs);
    let results: Promise<unknown>;
    this.batchesSent++;
    try {
      results = this.many.apply(undefined, [batch.map((q) => q.args)], {
        arguments: { copy: true },
        result: { promise: true, copy: true },
        timeout,
      });
    } catch {
      for (const q of batch) runAlone(q);
      return;
    }
    results.then(
      (all) => {
        batch.forEach((q, i) => {
          const r = (all as ManyResult[])[i];
          if (r?.[0] === true) q.resolve(r[1]);
          else if (r?.[1]) q.reject(Object.assign(new Error(r[1].message), { stack: r[1].stack }));
          else runAlone(q);
        });
      },
      () => {
        for (const q of batch) runAlone(q);
      },
    );
  }
}

function runAlone(q: Queued): void {
  try {
    q.alone().then(q.resolve, q.reject);
  } catch (err) {
    q.reject(err);
  }
}
