// The Redis work every /api call does — its admission (rate token, in-flight slot, cache read) and its slot's
// release (with the cache entry it leaves) — sent for all the calls of one event-loop turn as one script call
// (redis-scripts.ts TURN), at the end of the turn (kernel/turn-end.ts). Sent per call, each admission and each
// release was a pipeline of two commands: on PostgreSQL + Redis that was the whole distance between a billed call
// and its floor (docs/performance.md, "PostgreSQL + Redis: one script call per turn"): the commands' objects, replies and promises on the
// worker's thread, and Redis's own CPU per command on the same cores. Releases run before admissions, so a slot
// given back in a turn is free for a call admitted in it. A failed call fails every entry of it: each caller then
// decides as it did for its own command (redis-state.ts: the fallback, or the error).
import { atTurnEnd } from '../kernel/turn-end.js';
import type { ScriptRunner } from './redis-scripts.js';

export interface Admission {
  bucket: string;
  rate: number;
  burst: number;
  slotKey: string;
  limit: number;
  leaseMs: number;
  token: string;
  /** The cache key to read with it, or undefined. */
  read: string | undefined;
}

export interface Release {
  slotKey: string;
  token: string;
  /** The call's cache entry, written as the slot is given back. */
  cache?: { key: string; value: string; ttlSeconds: number };
}

/** Redis's answer to one admission: the bucket's tokens before it, whether the slot was taken, the cached value. */
export type AdmissionReply = [before: string, taken: number, value: string | null];

interface Waiting<T, R> {
  entry: T;
  resolve(reply: R): void;
  reject(err: unknown): void;
}

/** Entries per script call: a turn with more sends several (releases first), so no call is long for Redis. */
const MAX_ENTRIES = 256;

export interface RedisTurn {
  admit(admission: Admission): Promise<AdmissionReply>;
  release(release: Release): Promise<void>;
}

export function redisTurn(runTurn: ScriptRunner): RedisTurn {
  let releases: Array<Waiting<Release, void>> = [];
  let admissions: Array<Waiting<Admission, AdmissionReply>> = [];

  const send = (rel: Array<Waiting<Release, void>>, adm: Array<Waiting<Admission, AdmissionReply>>): void => {
    const keys: string[] = [];
    const args: Array<string | number> = [rel.length, adm.length];
    for (const { entry } of rel) {
      const { slotKey, token, cache } = entry;
      keys.push(slotKey, cache ? cache.key : slotKey);
      if (cache) args.push(token, 1, cache.value, cache.ttlSeconds);
      else args.push(token, 0, '', 0);
    }
    for (const { entry } of adm) {
      const { bucket, slotKey, read } = entry;
      keys.push(bucket, slotKey, read ?? slotKey);
      args.push(entry.rate, entry.burst, entry.limit, entry.leaseMs, entry.token, read === undefined ? 0 : 1);
    }
    runTurn(keys, args).then(
      (replies) => {
        for (const w of rel) w.resolve();
        const list = replies as AdmissionReply[];
        for (let i = 0; i < adm.length; i++) adm[i].resolve(list[i]);
      },
      (err) => {
        for (const w of rel) w.reject(err);
        for (const w of adm) w.reject(err);
      },
    );
  };

  const flush = (): void => {
    const rel = releases;
    const adm = admissions;
    releases = [];
    admissions = [];
    // Usually one call; the releases go in the first ones, so they still run before every admission.
    while (rel.length > 0 || adm.length > 0) {
      const r = rel.splice(0, MAX_ENTRIES);
      send(r, adm.splice(0, MAX_ENTRIES - r.length));
    }
  };

  const schedule = (): void => {
    if (releases.length + admissions.length === 1) atTurnEnd(flush);
  };

  return {
    admit: (entry) =>
      new Promise((resolve, reject) => {
        admissions.push({ entry, resolve, reject });
        schedule();
      }),
    release: (entry) =>
      new Promise((resolve, reject) => {
        releases.push({ entry, resolve, reject });
        schedule();
      }),
  };
}
