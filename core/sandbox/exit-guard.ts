// isolated-vm frees its host-side state in a Node environment-cleanup hook when the process exits. Any
// isolated-vm object on the host heap (Isolate, Reference, Callback, ExternalCopy, Context, the Copy of
// copyInto) that V8 collects after that hook runs its finalizer with no isolated-vm environment, and the process
// aborts: `IsolateEnvironment::GetCurrent(): Assertion environment != nullptr` (SIGABRT, exit 134) after every
// test in the file has passed. V8 does still collect during Node's teardown: objects reachable only from modules,
// servers or sockets become garbage as the cleanup releases those, and pending GC tasks run before the heap goes.
// Whether one of ours is among them is a matter of GC timing, hence one run in three. Reproduced for certain with
// a native cleanup hook registered before isolated-vm's (so run after it) that asks for a GC.
//
// So on 'exit', while isolated-vm is still whole: every isolate still alive is disposed, a full collection
// finalizes every isolated-vm object that is already garbage, and the objects the sandbox still holds are pinned on
// the global object, which lives until V8 tears the heap down (where no finalizer runs).
import v8 from 'node:v8';
import vm from 'node:vm';
import ivm from 'isolated-vm';

const PIN = Symbol.for('tollgate.sandbox.exitPinned');
const held = new Set<object>();
let hooked = false;

/** Keeps an isolated-vm object reachable through exit; `letGo` when the sandbox drops it. */
export function holdUntilExit<T extends object>(handle: T): T {
  held.add(handle);
  if (!hooked) {
    hooked = true;
    process.on('exit', settleAtExit);
  }
  return handle;
}

export function letGo(handle: object | undefined): void {
  if (handle) held.delete(handle);
}

/** The number of objects held now (tests). */
export function heldCount(): number {
  return held.size;
}

/** A full, synchronous collection. `gc` is exposed for new contexts only once asked for, as Jest does. */
function collectGarbage(): void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (typeof exposed === 'function') {
    exposed();
    return;
  }
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
}

/** Exported for tests; runs once, on 'exit'. */
export function settleAtExit(): void {
  const pinned = [...held];
  for (const h of pinned) {
    if (!(h instanceof ivm.Isolate) || h.isDisposed) continue;
    try {
      h.dispose();
    } catch {
      // disposed meanwhile by isolated-vm itself
    }
  }
  (globalThis as Record<symbol, unknown>)[PIN] = pinned;
  // Twice: an object the first pass finalizes can be the last holder of another.
  collectGarbage();
  collectGarbage();
}
