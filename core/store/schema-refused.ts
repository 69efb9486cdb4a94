// Row type of the refused-request counts (migration 009, core/store/refused-log.ts).

export interface RefusedRequestsTable {
  /** Start of the minute (epoch ms). */
  minute: number;
  kind: 'api' | 'notify';
  /** Address group (IPv4 address, IPv6 /64), or '*': a busy minute's overflow. */
  source: string;
  user_id: number | null;
  /** 0: no key. */
  key_id: number;
  /** Operation code or payment instance; '' when not known. */
  target: string;
  code: string;
  status: number;
  count: number;
}

export interface RefusedTables {
  refused_requests: RefusedRequestsTable;
}
