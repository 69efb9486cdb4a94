// Building one isolate for a plugin: memory limit, the compiled bundle (with V8 code cache after the first),
// one persistent context (module-scope caches survive between calls), and the bootstrap that returns `invoke`.
import ivm from 'isolated-vm';
import type { Logger } from '../kernel/logger.js';
import { BOOTSTRAP, type BridgeDeps, createBridge } from './bridge.js';
import type { PluginManifest } from './contract.js';
import { holdUntilExit, letGo } from './exit-guard.js';
import type { BatchEntry, CallArgs } from './isolate-batch.js';
import { ThreadActivity } from './thread-activity.js';

export type InvokeFn = (...args: CallArgs) => Promise<unknown>;

/** The isolate's entry points: one call, or several at once on its thread or on the host's (isolate-batch.ts). */
export interface Entry extends BatchEntry {
  invoke: ivm.Reference<InvokeFn>;
}

/** Top-level bundle code and the bootstrap get this long; a plugin that needs more at load is broken. */
const BOOT_TIMEOUT_MS = 5000;

export interface Attempt {
  /** The isolate died under this call through no fault of its own: resolve it for a re-run. */
  victimize(reason: string): void;
  /** Stop tracking: the isolate is gone, a late rejection from it means nothing. */
  forget(): void;
}

export interface Slot {
  readonly id: number;
  readonly isolate: ivm.Isolate;
  readonly ready: Promise<Entry>;
  /** Calls routed here and not yet settled inside the isolate (includes calls already answered by deadline). */
  load: number;
  readonly attempts: Set<Attempt>;
  /** Whether the isolate's own thread may be busy (thread-activity.ts). */
  readonly activity: ThreadActivity;
  dead: boolean;
  /** Its isolated-vm objects, held through process exit until the slot is killed (exit-guard.ts). */
  readonly handles: { list: object[]; released: boolean };
}

/** After the isolate is disposed: its objects may now be collected (while isolated-vm is still whole). A boot
 *  still under way holds nothing more. */
export function letGoOf(slot: Slot): void {
  slot.handles.released = true;
  for (const h of slot.handles.list.splice(0)) letGo(h);
}

export interface SlotSpec extends BridgeDeps {
  code: string;
  manifest: PluginManifest;
  logger: Logger;
  /** isolated-vm says state is unrecoverable after a catastrophic error: default logs and aborts the process. */
  onCatastrophic?: (message: string) => void;
}

export class SlotFactory {
  private cachedData?: ivm.ExternalCopy<ArrayBuffer>;
  private nextId = 1;

  constructor(private readonly spec: SlotSpec) {}

  create(): Slot {
    const { spec } = this;
    const handles = { list: [] as object[], released: false };
    const isolate = new ivm.Isolate({
      memoryLimit: spec.manifest.memory_mb,
      onCatastrophicError: (message) => {
        spec.logger.error('isolated-vm catastrophic error; aborting the process', {
          plugin: spec.plugin,
          reason: message,
        });
        spec.logger.flushSync(); // abort() runs no exit handlers: the buffered line would be lost
        (spec.onCatastrophic ?? (() => process.abort()))(message);
      },
    });
    const hold = <T extends object>(h: T): T => {
      if (handles.released) return h;
      handles.list.push(h);
      return holdUntilExit(h);
    };
    const activity = new ThreadActivity();
    const ready = this.boot(hold(isolate), hold, activity);
    ready.catch(() => undefined); // observed by whoever awaits the slot; never an unhandled rejection
    return { id: this.nextId++, isolate, ready, load: 0, attempts: new Set(), activity, dead: false, handles };
  }

  release(): void {
    this.cachedData?.release();
    letGo(this.cachedData);
    this.cachedData = undefined;
  }

  private async boot(
    isolate: ivm.Isolate,
    hold: <T extends object>(h: T) => T,
    activity: ThreadActivity,
  ): Promise<Entry> {
    const { spec } = this;
    const script = hold(
      await isolate.compileScript(spec.code, {
        filename: `file:///plugins/${spec.plugin}/handler.js`,
        ...(this.cachedData ? { cachedData: this.cachedData } : { produceCachedData: true }),
      }),
    );
    // The typings omit it, but with produceCachedData the Script carries `cachedData` (isolated-vm README).
    const produced = (script as ivm.Script & ivm.CachedDataResult).cachedData;
    if (!this.cachedData && produced) this.cachedData = holdUntilExit(produced);
    const context = hold(await isolate.createContext());
    await script.run(context, { timeout: BOOT_TIMEOUT_MS });
    script.release();
    const bridge = createBridge(spec, activity);
    for (const h of bridge) hold(h);
    const entry = (await context.evalClosure(BOOTSTRAP, bridge, {
      result: { reference: true },
      timeout: BOOT_TIMEOUT_MS,
    })) as ivm.Reference<Record<keyof Entry, unknown>>;
    const get = async <K extends keyof Entry>(name: K): Promise<Entry[K]> =>
      hold((await entry.get(name, { reference: true })) as Entry[K]);
    const ends: Entry = {
      invoke: await get('invoke'),
      many: await get('many'),
      begin: await get('begin'),
      collect: await get('collect'),
    };
    entry.release();
    return ends;
  }
}
