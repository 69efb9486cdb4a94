// Balances this process committed or read, for an answer's `remaining` on PostgreSQL, as SQLite's in-memory holds
// answer it (memory-holds.ts): within KNOWN_FOR_MS of being committed or read here, and not after a balance change
// posted by this process (a top-up, a grant: the ledger's stale epoch). Asking PostgreSQL for every answer that
// captured nothing (a call made free by `charge_when`, a refusal) was a transaction each: in the bench's phone row a
// third of its calls are free, and those reads were more transactions than the group commit's. A change made by
// another process shows within KNOWN_FOR_MS, the same bound as SQLite's.
import { LRUCache } from 'lru-cache';
import { staleEpochOf } from './ledger.js';

export const KNOWN_FOR_MS = 1000;
/** The busiest users are remembered; another one is read. */
const KNOWN_USERS = 10_000;

interface Known {
  balance: number;
  /** When it was committed or read (the read's start, so an older read never replaces a newer capture). */
  at: number;
  epoch: number;
}

export class KnownBalances {
  private readonly known = new LRUCache<number, Known>({ max: KNOWN_USERS });

  /** The balance, if this process committed or read it within KNOWN_FOR_MS and changed nothing since. */
  get(userId: number, now = Date.now()): number | undefined {
    const k = this.known.get(userId);
    return k && k.epoch === staleEpochOf(userId) && now - k.at < KNOWN_FOR_MS ? k.balance : undefined;
  }

  /**
   * `balance` as of `at` (a capture's commit, or when a read began), under the epoch seen before it; kept unless
   * something newer is known.
   */
  set(userId: number, balance: number, at: number, epoch: number): void {
    const k = this.known.get(userId);
    if (k && k.at > at && k.epoch === epoch) return;
    this.known.set(userId, { balance, at, epoch });
  }
}
