// A gate in front of scrypt. Each hash takes 128 MiB and ~0.25 s of a libuv thread; without a cap, a flood of
// logins fills the thread pool (which file I/O and DNS share) and queues legitimate logins behind it. A few
// hashes run at once, a bounded queue waits, and one client (IP) may hold only a couple of places, so a single
// source cannot fill the queue for everyone else. Logins from an IP that has logged in to the account before
// (known-good, core/accounts/login-throttle.ts) go to the front and have places of their own, so even a flood
// from many addresses cannot starve the owner.
export interface PasswordWorkLimits {
  /** Hashes running at once (libuv has 4 threads by default: leave some for file and DNS work). */
  running: number;
  /** Waiting places in total. */
  queued: number;
  /** Extra waiting places only priority (known-good) work may take. */
  reserved: number;
  /** Running + waiting places one client may hold. */
  perClient: number;
}

export const DEFAULT_PASSWORD_WORK: PasswordWorkLimits = { running: 2, queued: 16, reserved: 16, perClient: 2 };

export type WorkRefusal = 'client-busy' | 'queue-full';

export class PasswordWorkRefused extends Error {
  constructor(readonly reason: WorkRefusal) {
    super(
      reason === 'client-busy'
        ? 'this client already has password checks in progress'
        : 'too many password checks queued',
    );
  }
}

export class PasswordWork {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly urgent: Array<() => void> = [];
  private readonly perClient = new Map<string, number>();

  constructor(private readonly limits: PasswordWorkLimits = DEFAULT_PASSWORD_WORK) {}

  /**
   * Runs `work` when a place is free; throws PasswordWorkRefused at once when the client or queue is full.
   * `priority` work waits ahead of the rest and may also use the reserved places.
   */
  async run<T>(client: string, work: () => Promise<T>, priority = false): Promise<T> {
    const held = this.perClient.get(client) ?? 0;
    if (held >= this.limits.perClient) throw new PasswordWorkRefused('client-busy');
    const queued = this.waiting.length + this.urgent.length;
    const room = this.limits.queued + (priority ? this.limits.reserved : 0);
    if (this.running >= this.limits.running && queued >= room) throw new PasswordWorkRefused('queue-full');
    this.perClient.set(client, held + 1);
    try {
      if (this.running >= this.limits.running)
        await new Promise<void>((resolve) => (priority ? this.urgent : this.waiting).push(resolve));
      else this.running++;
      try {
        return await work();
      } finally {
        // Hand the running place straight to the next waiter, or give it back.
        const next = this.urgent.shift() ?? this.waiting.shift();
        if (next) next();
        else this.running--;
      }
    } finally {
      const left = (this.perClient.get(client) ?? 1) - 1;
      if (left <= 0) this.perClient.delete(client);
      else this.perClient.set(client, left);
    }
  }

  get stats(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length + this.urgent.length };
  }
}
