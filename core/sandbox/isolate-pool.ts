// One plugin's isolates. Calls are multiplexed: an I/O-bound plugin spends most of a call awaiting host.fetch,
// so several calls share an isolate (one persistent context, so module-scope caches survive), routed to the
// least-loaded isolate, with a per-isolate cap and a queue beyond it. The host owns the wall clock: isolated-vm's
// `timeout` covers only synchronous execution, never awaited promises: code that runs after a host promise settles
// is not bounded by it, so the pool's own deadline disposes such an isolate.
import type { Logger } from '../kernel/logger.js';
import { startAtTurnEnd } from '../kernel/turn-end.js';
import type { Resolver } from './address-policy.js';
import type { AssetStore } from './assets.js';
import { type CallState, CallTable } from './calls.js';
import type { PluginManifest } from './contract.js';
import { type CallArgs, IsolateBatch } from './isolate-batch.js';
import { type Attempt, type Entry, letGoOf, type Slot, SlotFactory } from './isolate-slot.js';
import { KeptOptions, OPTIONS_MISSING } from './kept-options.js';
import type { LogBudget } from './log-budget.js';
import { reachesNoNetwork } from './manifest.js';
import {
  checkOutcome,
  errorDetail,
  errorText,
  escapedFetchOutcome,
  IVM,
  internalOutcome,
  type SandboxOutcome,
  timeoutOutcome,
} from './outcome.js';

/** After an UPSTREAM_TIMEOUT the aborted fetch rejects inside the isolate; if the call still has not settled
 *  this long after, it is stuck (e.g. caught the abort and looped) and its isolate is replaced. */
const ZOMBIE_GRACE_MS = 1000;

export interface PoolOptions {
  plugin: string;
  pluginDir: string;
  manifest: PluginManifest;
  code: string;
  size: number;
  maxPerIsolate: number;
  logger: Logger;
  assets: AssetStore;
  resolver: Resolver;
  fetchImpl?: typeof fetch;
  logBudget: LogBudget;
  /** isolated-vm says state is unrecoverable after a catastrophic error: default logs and aborts the process. */
  onCatastrophic?: (message: string) => void;
}

export interface PoolCall {
  operation: string;
  requestId: string;
  input: Record<string, unknown>;
  options: Record<string, unknown>;
  /** host.pin: the one provider of the plugin's own a canary probe tries (contract.ts). */
  pin?: string;
  /** The operation's hosts, for a plugin whose manifest says hosts_from_operation. */
  allowHosts?: readonly string[];
  deadlineMs: number;
  deadlineAt: number;
  /** Bound with plugin, operation and request_id. */
  log: Logger;
  /** Whose host.log budget the call draws from (plugin + API key). */
  logScope: string;
}

type Exec = { kind: 'done'; outcome: SandboxOutcome } | { kind: 'victim'; reason: string };

export class IsolatePool {
  private readonly calls = new CallTable();
  private readonly slots: Slot[] = [];
  private readonly waiters: Array<{ resolve: (s: Slot | null) => void; timer: NodeJS.Timeout }> = [];
  private readonly factory: SlotFactory;
  private closed = false;
  /** `allow_hosts: []`: its calls only compute, so the calls of a turn to one isolate are started together. */
  private readonly offline: boolean;
  private readonly batches = new WeakMap<Slot, IsolateBatch>();
  /** Options sent to each isolate once, then named by number (kept-options.ts). */
  private readonly kept = new KeptOptions();

  constructor(private readonly o: PoolOptions) {
    this.factory = new SlotFactory({ ...o, calls: this.calls });
    this.offline = reachesNoNetwork(o.manifest);
  }

  private batchOf(slot: Slot, entry: Entry): IsolateBatch {
    let batch = this.batches.get(slot);
    if (!batch) this.batches.set(slot, (batch = new IsolateBatch(entry, slot.activity)));
    return batch;
  }

  /** Boots the first isolate, so a bundle that throws at load fails at startup and names the plugin. */
  async start(): Promise<void> {
    const slot = this.spawn();
    try {
      await slot.ready;
    } catch (err) {
      this.kill(slot, 'boot failed', null, false);
      throw new Error(`plugin ${this.o.plugin}: loading the bundle failed: ${errorText(err)}`);
    }
  }

  get isolates(): number {
    return this.slots.length;
  }

  async run(call: PoolCall): Promise<SandboxOutcome> {
    for (let attempt = 1; ; attempt++) {
      if (this.closed) throw new Error(`plugin ${this.o.plugin}: the pool is closed`);
      const slot = await this.acquire(call.deadlineAt);
      if (!slot) {
        call.log.warn('no isolate became free before the deadline', { isolates: this.slots.length });
        return { ok: false, code: 'UNAVAILABLE', message: `${this.o.plugin}: too busy, try again` };
      }
      const r = await this.execute(slot, call);
      if (r.kind === 'done') return r.outcome;
      if (attempt >= 2 || Date.now() >= call.deadlineAt || this.closed) {
        call.log.error('plugin call failed', {
          reason: attempt >= 2 ? `isolate lost twice: ${r.reason}` : `isolate lost at the deadline: ${r.reason}`,
        });
        return internalOutcome(this.o.plugin);
      }
      // Plugins are read-only lookups, so running an innocent call again is safe.
      call.log.warn('re-running a call whose isolate was disposed', { reason: r.reason });
    }
  }

  /** Stops new calls; lets calls in flight finish for up to `drainMs`, then disposes every isolate. */
  async close(drainMs = 0): Promise<void> {
    this.closed = true;
    for (const w of this.waiters.splice(0)) {
      clearTimeout(w.timer);
      w.resolve(null);
    }
    const until = Date.now() + drainMs;
    while (Date.now() < until && this.slots.some((s) => s.load > 0)) await new Promise((r) => setTimeout(r, 20));
    // Disposing an isolate (and releasing the shared code cache) while its boot is still compiling on the isolate's
    // thread can abort the whole process inside isolated-vm (GetCurrent: environment != nullptr), seen when an app
    // is closed right after start. Let the boots settle first; a boot is itself bounded by its own timeouts.
    const booted = await Promise.allSettled(this.slots.map((s) => s.ready));
    // The host's handle on each isolate's entry point is released before the isolate goes, so no handle of a
    // disposed isolate is left for the finalizers that run while the process exits.
    for (const b of booted) {
      if (b.status !== 'fulfilled') continue;
      for (const ref of Object.values(b.value)) {
        try {
          ref.release();
        } catch {
          // already invalid (the isolate died on its own)
        }
      }
    }
    for (const slot of [...this.slots]) this.kill(slot, 'pool closed', null, false);
    this.factory.release();
  }

  private spawn(): Slot {
    const slot = this.factory.create();
    this.slots.push(slot);
    return slot;
  }

  /**
   * Least-loaded live isolate under the cap; grows the pool when every isolate is already busy. An offline
   * plugin's calls go to the first isolate that is quiet instead: they run on the gateway thread, one batch per
   * isolate and turn (isolate-batch.ts), so spreading them would only make more batches.
   */
  private pick(): Slot | undefined {
    if (this.offline)
      for (const s of this.slots) if (!s.dead && s.load < this.o.maxPerIsolate && s.activity.quiet) return s;
    let best: Slot | undefined;
    for (const s of this.slots) if (!s.dead && s.load < this.o.maxPerIsolate && (!best || s.load < best.load)) best = s;
    if ((!best || best.load > 0) && this.slots.length < this.o.size && !this.closed) return this.spawn();
    return best;
  }

  private acquire(deadlineAt: number): Promise<Slot | null> {
    const slot = this.pick();
    if (slot) {
      slot.load++;
      return Promise.resolve(slot);
    }
    return new Promise((resolve) => {
      const waiter = {
        resolve,
        timer: setTimeout(
          () => {
            const i = this.waiters.indexOf(waiter);
            if (i >= 0) this.waiters.splice(i, 1);
            resolve(null);
          },
          Math.max(0, deadlineAt - Date.now()),
        ),
      };
      this.waiters.push(waiter);
    });
  }

  private release(slot: Slot): void {
    slot.load--;
    this.drain();
  }

  private drain(): void {
    while (this.waiters.length > 0) {
      const slot = this.pick();
      if (!slot) return;
      const w = this.waiters.shift();
      if (!w) return;
      clearTimeout(w.timer);
      slot.load++;
      w.resolve(slot);
    }
  }

  /** Disposes an isolate. Every other call on it is innocent and is re-run; `culprit` is not. */
  private kill(slot: Slot, reason: string, culprit: Attempt | null, replace = true): void {
    if (slot.dead) return;
    slot.dead = true;
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
    for (const a of [...slot.attempts]) a === culprit ? a.forget() : a.victimize(reason);
    slot.attempts.clear();
    try {
      slot.isolate.dispose();
    } catch {
      // already disposed by isolated-vm itself (memory limit)
    }
    letGoOf(slot);
    this.o.logger.warn('isolate disposed', { plugin: this.o.plugin, isolate: slot.id, reason });
    if (replace && !this.closed && this.slots.length < this.o.size) this.spawn(); // keep a warm one ready
    this.drain();
  }

  private async execute(slot: Slot, call: PoolCall): Promise<Exec> {
    let entry: Entry;
    try {
      entry = await slot.ready;
    } catch (err) {
      this.kill(slot, `boot failed: ${errorText(err)}`, null);
      call.log.error('plugin call failed', { reason: 'isolate boot failed', detail: errorDetail(err) });
      return { kind: 'done', outcome: internalOutcome(this.o.plugin) };
    }
    if (slot.dead) return { kind: 'victim', reason: 'isolate disposed before the call started' };
    const state = this.calls.open(call);
    return new Promise<Exec>((resolve) => {
      let finished = false;
      let settled = false;
      let grace: NodeJS.Timeout | undefined;
      const finish = (r: Exec): void => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        this.calls.close(state); // aborts whatever the call still has in flight
        if (state.logDropped > 0)
          call.log.warn('plugin log lines dropped', { dropped: state.logDropped, written: state.logLines });
        resolve(r);
      };
      const settle = (): boolean => {
        if (settled) return false;
        settled = true;
        clearTimeout(grace);
        slot.attempts.delete(attempt);
        this.release(slot);
        return true;
      };
      const attempt: Attempt = {
        victimize: (reason) => {
          settled = true;
          clearTimeout(grace);
          finish({ kind: 'victim', reason });
        },
        forget: () => {
          settled = true;
          clearTimeout(grace);
        },
      };
      slot.attempts.add(attempt);

      const onDeadline = (): void => {
        if (finished) return;
        if (state.pendingFetches > 0) {
          // Waiting on upstream: the abort makes the fetch reject inside the isolate, which stays healthy.
          call.log.warn('deadline passed while a fetch was pending', { deadline_ms: call.deadlineMs });
          finish({ kind: 'done', outcome: timeoutOutcome(this.o.plugin, call.deadlineMs) });
          if (!settled) {
            grace = setTimeout(
              () => this.kill(slot, `call still running ${ZOMBIE_GRACE_MS} ms after its deadline`, attempt),
              ZOMBIE_GRACE_MS,
            );
          }
          return;
        }
        // Computing or stuck with nothing to wait for: only disposing the isolate stops it.
        call.log.error('plugin call failed', {
          reason: `still running at the ${call.deadlineMs} ms deadline with no fetch pending; isolate disposed`,
        });
        this.kill(slot, 'call overran its deadline', attempt);
        finish({ kind: 'done', outcome: internalOutcome(this.o.plugin) });
      };
      const remaining = Math.max(1, Math.ceil(call.deadlineAt - Date.now()));
      const timer = setTimeout(onDeadline, remaining);

      const optionsId = this.kept.idOf(call.options);
      const argsWith = (sendOptions: boolean): CallArgs => [
        state.id,
        call.input,
        sendOptions ? call.options : null,
        call.operation,
        call.pin ?? null,
        optionsId,
      ];
      const aloneWith = (args: CallArgs) => (): Promise<unknown> =>
        entry.invoke.apply(undefined, args, {
          arguments: { copy: true },
          result: { promise: true, copy: true },
          // covers the synchronous part; the timer above covers the rest
          timeout: Math.max(1, Math.ceil(call.deadlineAt - Date.now())),
        });
      const onValue = (value: unknown, resent: boolean): void => {
        if (value === OPTIONS_MISSING && !resent) {
          // The isolate let this call's options go: once more with them, on the isolate's own thread.
          this.kept.forget(slot, optionsId);
          startAtTurnEnd(aloneWith(argsWith(true))).then((v) => onValue(v, true), onError);
          return;
        }
        if (!settle()) return;
        this.kept.note(slot, optionsId);
        const checked = checkOutcome(value);
        if ('outcome' in checked) finish({ kind: 'done', outcome: checked.outcome });
        else {
          call.log.error('plugin call failed', { reason: checked.invalid });
          finish({ kind: 'done', outcome: internalOutcome(this.o.plugin) });
        }
      };
      const onError = (err: unknown): void => {
        if (!settle()) return;
        finish(this.classify(err, slot, attempt, state, call));
      };
      const args = argsWith(!this.kept.holds(slot, optionsId));
      const alone = aloneWith(args);
      // Started with the other isolate calls of this turn (kernel/turn-end.ts): one wake-up of the thread for all,
      // and for a plugin that cannot reach the network one isolated-vm call for all (isolate-batch.ts).
      (this.offline ? this.batchOf(slot, entry).run(args, remaining, alone) : startAtTurnEnd(alone)).then(
        (value: unknown) => onValue(value, args[2] !== null),
        onError,
      );
    });
  }

  private classify(err: unknown, slot: Slot, attempt: Attempt, state: CallState, call: PoolCall): Exec {
    const message = errorText(err);
    if (slot.dead) return { kind: 'victim', reason: 'isolate disposed' };
    // Only the host's own view says an isolate is gone: a plugin can throw an Error whose text reads like
    // isolated-vm's ('Isolate is disposed', '... due to memory limit') to get innocent calls re-run. While the
    // isolate is alive, such a message is just the plugin's own error.
    if (!slot.isolate.isDisposed) return this.pluginError(err, message, state, call);
    if (IVM.memoryLimit(message)) {
      // Synchronous OOM: this call was the one executing, so it is the culprit.
      this.kill(slot, 'memory limit exceeded', attempt);
      call.log.error('plugin call failed', {
        reason: `memory limit of ${this.o.manifest.memory_mb} MB exceeded`,
        detail: message,
      });
      return { kind: 'done', outcome: internalOutcome(this.o.plugin) };
    }
    // Died on its own (an OOM after an await loses its reason, isolated-vm #113): the culprit is unknown, so
    // every call on it runs once more; the guilty one fails again and then gets INTERNAL.
    this.kill(slot, `isolate died: ${message}`, null);
    return { kind: 'victim', reason: `isolate died (memory limit?): ${message}` };
  }

  /** A rejection from a live isolate: a sync timeout, a host fetch error that escaped, or the plugin's own throw. */
  private pluginError(err: unknown, message: string, state: CallState, call: PoolCall): Exec {
    if (IVM.syncTimeout(message)) {
      // isolated-vm stopped synchronous code at the deadline; unlike a disposal, this leaves the isolate usable.
      call.log.error('plugin call failed', { reason: `synchronous code ran past the ${call.deadlineMs} ms deadline` });
      return { kind: 'done', outcome: internalOutcome(this.o.plugin) };
    }
    const kind = state.fetchErrors.get(message);
    // The host's text names the host and the errno: the operator's reason (detail), not the caller's sentence.
    if (kind) return { kind: 'done', outcome: escapedFetchOutcome(this.o.plugin, kind, message) };
    call.log.error('plugin call failed', { reason: 'run() threw', detail: errorDetail(err) });
    return { kind: 'done', outcome: internalOutcome(this.o.plugin) };
  }
}
