// What every trail provider implements, and the few outcomes the failover loop needs to tell apart.
import type { Host } from '../../../core/sandbox/contract.js';
import type { Courier } from '../couriers.js';
import type { MappedState } from '../states.js';

export type ProviderId = 'kuaidi100' | 'kdniao';

export interface Trace {
  /** ISO 8601 with +08:00; null when the provider's time text could not be read. */
  time: string | null;
  context: string;
  location: string | null;
}

export interface Track extends MappedState {
  /** Newest first. */
  traces: Trace[];
}

export interface TrackQuery {
  no: string;
  courier: Courier;
  /** As the caller gave it (full number or last 4 digits); null when not given. */
  phone: string | null;
}

export type ProviderResult =
  | { kind: 'found'; track: Track }
  /** The provider answered and has no trail for this courier + number (an answer, not a failure). */
  | { kind: 'no_record'; detail: string }
  /** This provider does not serve that courier at all (Kuaidi100 400 不支持此快递公司): another provider may. */
  | { kind: 'unsupported'; detail: string }
  /** The carrier says the phone does not match the number: the caller must fix their input. */
  | { kind: 'bad_phone'; detail: string }
  /** Network error, 5xx, busy, quota, bad credentials, changed shape: worth trying the next provider. */
  | { kind: 'failed'; detail: string }
  | { kind: 'timeout'; detail: string };

export interface Provider {
  readonly id: ProviderId;
  /** Whether this provider can query that courier at all (Kdniao needs its own ShipperCode). */
  supports(courier: Courier): boolean;
  query(q: TrackQuery, host: Host): Promise<ProviderResult>;
}
