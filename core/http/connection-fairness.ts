// Who gets a connection when many are open. Counting alone (a total and a per-address cap) let 45 addresses of one
// host fill the total with idle sockets, so a client from any other address was refused while they reconnected.
// The table below admits a new connection by these rules, in order:
// 1. an address group (an IPv4 address, an IPv6 /64) holds at most `perGroup` connections, and an IPv6 /48 (a
//    whole site's allocation: 65,536 /64 groups) at most `perPrefix`;
// 2. the last `reserve` places are kept for groups holding fewer than `heavy` connections, so an address already
//    holding many cannot take them;
// 3. when every place is taken, the oldest connection that has not yet sent a whole request is closed to make room
//    (an idle or slowloris socket; a client that was answered once is never closed for this); with none such, the
//    new connection is refused.
// A group of null (a trusted proxy, or per-address counting off) is exempt from 1 and 2.

export interface FairnessOptions {
  max: number;
  /** Per address group; 0: no per-address counting. */
  perGroup: number;
  /** Per IPv6 /48; 0: none. */
  perPrefix: number;
  reserve: number;
  heavy: number;
}

export type Verdict = 'admitted' | 'per-address' | 'per-prefix' | 'share' | 'full';

interface Entry {
  group: string | null;
  prefix: string | null;
}

/** The options for a total of `max` and a per-address cap of `perGroup` (the defaults the server uses). */
export function fairnessOptions(max: number, perGroup: number): FairnessOptions {
  return {
    max,
    perGroup,
    perPrefix: perGroup * 4,
    reserve: Math.floor(max / 10),
    heavy: Math.max(2, Math.ceil(perGroup / 32)),
  };
}

export class ConnectionTable<C> {
  private readonly groups = new Map<string, number>();
  private readonly prefixes = new Map<string, number>();
  private readonly entries = new Map<C, Entry>();
  /** Connections that have not sent a whole request yet, oldest first (a Set keeps insertion order). */
  private readonly fresh = new Set<C>();

  constructor(
    private readonly o: FairnessOptions,
    private readonly close: (c: C) => void,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  open(group: string): number {
    return this.groups.get(group) ?? 0;
  }

  openPrefix(prefix: string): number {
    return this.prefixes.get(prefix) ?? 0;
  }

  /** A new connection: admitted (after closing the oldest one without a request, if need be) or refused. */
  admit(c: C, group: string | null, prefix: string | null): Verdict {
    if (group !== null) {
      const n = this.groups.get(group) ?? 0;
      if (n >= this.o.perGroup) return 'per-address';
      if (prefix !== null && this.o.perPrefix > 0 && (this.prefixes.get(prefix) ?? 0) >= this.o.perPrefix)
        return 'per-prefix';
      if (this.entries.size >= this.o.max - this.o.reserve && n >= this.o.heavy) return 'share';
    }
    if (this.entries.size >= this.o.max) {
      const oldest = this.fresh.values().next();
      if (oldest.done) return 'full';
      this.remove(oldest.value);
      this.close(oldest.value);
    }
    this.entries.set(c, { group, prefix });
    this.fresh.add(c);
    if (group !== null) this.groups.set(group, (this.groups.get(group) ?? 0) + 1);
    if (prefix !== null) this.prefixes.set(prefix, (this.prefixes.get(prefix) ?? 0) + 1);
    return 'admitted';
  }

  /** The connection sent a whole request: never closed to make room. */
  served(c: C): void {
    this.fresh.delete(c);
  }

  /** The connection closed (or was closed); once per connection, later calls do nothing. */
  remove(c: C): void {
    const e = this.entries.get(c);
    if (!e) return;
    this.entries.delete(c);
    this.fresh.delete(c);
    if (e.group !== null) decrement(this.groups, e.group);
    if (e.prefix !== null) decrement(this.prefixes, e.prefix);
  }
}

function decrement(m: Map<string, number>, k: string): void {
  const left = (m.get(k) ?? 1) - 1;
  if (left <= 0) m.delete(k);
  else m.set(k, left);
}
