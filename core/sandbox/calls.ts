// Host-side state of the calls in flight on one plugin's isolates. Several calls share an isolate at once,
// so everything a host callback needs (abort signal, options, logger) is looked up by the call id the
// bootstrap closure passes along: the plugin never holds the id itself and cannot act for another call.
import type { Logger } from '../kernel/logger.js';
import type { HostFetchError } from './host-fetch.js';
import type { LogMeter } from './log-budget.js';

export interface CallState extends LogMeter {
  readonly id: number;
  readonly operation: string;
  readonly requestId: string;
  readonly options: Readonly<Record<string, unknown>>;
  /** Hosts this call may fetch when the plugin takes them from the operation (manifest hosts_from_operation). */
  readonly allowHosts: readonly string[] | undefined;
  /**
   * Aborted at the deadline and when the call ends: stray fetches of a finished call stop too. Made by the call's
   * first fetch (signalOf): an AbortController costs ~2.6 us to make, more than an offline lookup's whole run.
   */
  controller: AbortController | undefined;
  readonly deadlineAt: number;
  /** Fetches started and not yet settled: tells "waiting on upstream" from "stuck computing" at the deadline. */
  pendingFetches: number;
  fetchCount: number;
  /** Message -> kind of every HostFetchError handed to the isolate; an escaped one is mapped back by message. */
  readonly fetchErrors: Map<string, HostFetchError['kind']>;
  /** Bound with plugin, operation and request_id. */
  readonly log: Logger;
}

export interface OpenCall {
  operation: string;
  requestId: string;
  options: Readonly<Record<string, unknown>>;
  deadlineAt: number;
  allowHosts?: readonly string[];
  log: Logger;
  /** Whose log budget the call draws from (core/sandbox/log-budget.ts). */
  logScope: string;
}

export class CallTable {
  private nextId = 1;
  private readonly calls = new Map<number, CallState>();

  open(spec: OpenCall): CallState {
    const state: CallState = {
      id: this.nextId++,
      operation: spec.operation,
      requestId: spec.requestId,
      options: spec.options,
      allowHosts: spec.allowHosts,
      controller: undefined,
      deadlineAt: spec.deadlineAt,
      pendingFetches: 0,
      fetchCount: 0,
      fetchErrors: new Map(),
      log: spec.log,
      logScope: spec.logScope,
      logLines: 0,
      logBytes: 0,
      logDropped: 0,
    };
    this.calls.set(state.id, state);
    return state;
  }

  get(id: unknown): CallState | undefined {
    return typeof id === 'number' ? this.calls.get(id) : undefined;
  }

  /** Ends a call: later host callbacks for it are refused and its pending fetches are aborted. */
  close(state: CallState): void {
    this.calls.delete(state.id);
    // Creating the abort reason (a DOMException with a stack) is measurable per call; with nothing in flight
    // there is nothing to stop, and later fetches of a closed call are refused anyway.
    if (state.pendingFetches > 0) state.controller?.abort();
  }

  get size(): number {
    return this.calls.size;
  }
}

/** The signal that stops the call's fetches, made with its first fetch. */
export function signalOf(state: CallState): AbortSignal {
  state.controller ??= new AbortController();
  return state.controller.signal;
}
