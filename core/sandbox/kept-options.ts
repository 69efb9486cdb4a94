// An operation's options (for the http plugin: the whole upstream definition) change only when the configuration
// is reloaded, so each isolate is sent them once and keeps them frozen under a number; a call then passes only the
// number. The host counts an isolate as holding them once a call that carried them has come back; an isolate that
// let them go (it keeps a bounded number) answers OPTIONS_MISSING and the call is sent again with them.
// Copying and freezing a definition into the isolate with every call cost the configured upstreams per call what
// their hand-written twins did not (docs/performance.md).

/** What `invoke` (bridge.ts) answers for a number it does not hold; never a plugin's outcome (not an object). */
export const OPTIONS_MISSING = '\u0000tollgate:options-missing';

/** How many options objects one isolate keeps before it forgets them all (bridge.ts). */
export const KEPT_OPTIONS_MAX = 256;

/** Numbers for options objects (one per object, for as long as it lives) and which isolates hold which. */
export class KeptOptions {
  private readonly ids = new WeakMap<object, number>();
  private readonly held = new WeakMap<object, Set<number>>();
  private next = 1;

  idOf(options: object): number {
    let id = this.ids.get(options);
    if (id === undefined) this.ids.set(options, (id = this.next++));
    return id;
  }

  /** Whether `isolate` (any object standing for it) is known to hold options number `id`. */
  holds(isolate: object, id: number): boolean {
    return this.held.get(isolate)?.has(id) ?? false;
  }

  /** A call that carried them came back: the isolate holds them. */
  note(isolate: object, id: number): void {
    let ids = this.held.get(isolate);
    if (!ids) this.held.set(isolate, (ids = new Set()));
    if (ids.size >= KEPT_OPTIONS_MAX) ids.clear(); // the isolate forgets past this many too
    ids.add(id);
  }

  /** The isolate answered OPTIONS_MISSING: it let them go. */
  forget(isolate: object, id: number): void {
    this.held.get(isolate)?.delete(id);
  }
}
