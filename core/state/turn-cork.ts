// The Redis commands of one event-loop turn leave in one socket write. Every billed call sends two pipelines (the
// admission, then the slot's release), and the calls a turn's I/O woke send theirs together: written one by one,
// each was a write system call of its own, the largest part of a worker's CPU per call after the answer's own
// write (docs/performance.md, "PostgreSQL + Redis, 2026-11-27 afternoon"). Corked at the first command of a turn
// and uncorked at its end (kernel/turn-end.ts), they go out in one writev. Nothing is reordered, and Redis runs
// them in the order sent, as before.
import type { Writable } from 'node:stream';
import type { Redis } from 'ioredis';
import { atTurnEnd } from '../kernel/turn-end.js';

/** Call before sending a command on `redis`: its writes of this turn are held until the turn ends. */
export function turnCork(redis: Redis): () => void {
  let corked: Writable | null = null;
  const uncork = (): void => {
    const stream = corked;
    corked = null;
    stream?.uncork();
  };
  return () => {
    if (corked || redis.status !== 'ready') return;
    const stream = redis.stream as Writable | undefined;
    if (!stream || stream.writableCorked > 0) return;
    corked = stream;
    stream.cork();
    atTurnEnd(uncork);
  };
}
