// One normalised state set across providers. Each provider numbers its states differently (Kuaidi100 2 =
// problem, Kdniao 2 = in transit), so every provider has its own map here and none are shared.

export type TrackState =
  | 'PENDING' // ordered and waiting for pickup (a trail with no scan yet; "no record at all" is NOT_FOUND)
  | 'PICKED_UP'
  | 'IN_TRANSIT'
  | 'DELIVERING' // out for delivery, or waiting in a locker / pickup station (at_locker = true)
  | 'SIGNED'
  | 'EXCEPTION' // problem parcel: overdue, damaged, unreachable, held, customs trouble ...
  | 'RETURNING' // on its way back to the sender
  | 'RETURNED' // back with the sender and signed for
  | 'REJECTED' // the recipient refused it
  | 'TRANSFERRED' // handed to another carrier
  | 'CUSTOMS' // in customs clearance
  | 'CANCELLED' // waybill cancelled (销单)
  | 'UNKNOWN'; // the provider used a code we do not know

export const STATE_TEXT: Readonly<Record<TrackState, string>> = {
  PENDING: '待揽收',
  PICKED_UP: '已揽收',
  IN_TRANSIT: '运输中',
  DELIVERING: '派件中',
  SIGNED: '已签收',
  EXCEPTION: '疑难件',
  RETURNING: '退回中',
  RETURNED: '已退签',
  REJECTED: '已拒签',
  TRANSFERRED: '已转投',
  CUSTOMS: '清关中',
  CANCELLED: '已销单',
  UNKNOWN: '未知',
};

const FINISHED: ReadonlySet<TrackState> = new Set<TrackState>(['SIGNED', 'RETURNED', 'REJECTED', 'CANCELLED']);

/** Terminal: the trail will not move any more (Kuaidi100 counts 3 签收, 4 退签 and 14 拒签 as final). */
export function isFinished(state: TrackState): boolean {
  return FINISHED.has(state);
}

export interface MappedState {
  state: TrackState;
  at_locker: boolean;
}

// Kuaidi100 `state` and `data[].statusCode` (resultv2=4). Some clients see the advanced codes in `state`
// itself, so one map holds both levels.
const K100: Readonly<Record<string, TrackState>> = {
  '0': 'IN_TRANSIT',
  '1001': 'IN_TRANSIT',
  '1002': 'IN_TRANSIT',
  '1003': 'IN_TRANSIT',
  '1': 'PICKED_UP',
  '101': 'PENDING',
  '102': 'PENDING',
  '103': 'PICKED_UP',
  // 203 收件人发起拒收, 待发货方确认: a problem waiting for the sender, not a final refusal (Kuaidi100 advanced
  // state table); the parcel goes on to 14 拒签, 6 退回 or a second delivery.
  '2': 'EXCEPTION',
  '201': 'EXCEPTION',
  '202': 'EXCEPTION',
  '203': 'EXCEPTION',
  '204': 'EXCEPTION',
  '205': 'EXCEPTION',
  '206': 'EXCEPTION',
  '207': 'EXCEPTION',
  '208': 'EXCEPTION',
  '209': 'EXCEPTION',
  '210': 'CANCELLED',
  '3': 'SIGNED',
  '301': 'SIGNED',
  '302': 'SIGNED',
  '303': 'SIGNED',
  '304': 'SIGNED',
  '4': 'RETURNED',
  '401': 'CANCELLED',
  '5': 'DELIVERING',
  '501': 'DELIVERING',
  '6': 'RETURNING',
  '7': 'TRANSFERRED',
  '8': 'CUSTOMS',
  '10': 'CUSTOMS',
  '11': 'CUSTOMS',
  '12': 'CUSTOMS',
  '13': 'EXCEPTION',
  '14': 'REJECTED',
};
const K100_LOCKER = new Set(['205', '304', '501']);

// Kdniao `State` and `StateEx` (8001).
const KDN: Readonly<Record<string, TrackState>> = {
  '0': 'PENDING',
  '10': 'PENDING',
  '1': 'PICKED_UP',
  '2': 'IN_TRANSIT',
  '201': 'IN_TRANSIT',
  '202': 'DELIVERING',
  '204': 'IN_TRANSIT',
  '205': 'IN_TRANSIT',
  '206': 'IN_TRANSIT',
  '211': 'DELIVERING',
  '3': 'SIGNED',
  '301': 'SIGNED',
  '302': 'SIGNED',
  '304': 'SIGNED',
  '311': 'SIGNED',
  '4': 'EXCEPTION',
  '401': 'EXCEPTION',
  '402': 'EXCEPTION',
  '403': 'EXCEPTION',
  '404': 'REJECTED',
  '405': 'EXCEPTION',
  '406': 'RETURNED',
  '407': 'RETURNING',
  '412': 'EXCEPTION',
  '413': 'EXCEPTION',
  '414': 'EXCEPTION',
  '415': 'CANCELLED',
  '416': 'EXCEPTION',
  '417': 'EXCEPTION',
  '418': 'EXCEPTION',
  '419': 'EXCEPTION',
  '420': 'EXCEPTION',
  '421': 'EXCEPTION',
  '422': 'EXCEPTION',
  '423': 'EXCEPTION',
  '5': 'TRANSFERRED',
  '6': 'CUSTOMS',
  '601': 'CUSTOMS',
  '602': 'CUSTOMS',
  '603': 'CUSTOMS',
  '604': 'EXCEPTION',
};
const KDN_LOCKER = new Set(['211', '311', '412']);

/** A code as the providers send it: "3", 3, " 3 ". Anything else is no code. */
export function codeOf(value: unknown): string | null {
  if (typeof value === 'number' && Number.isInteger(value)) return String(value);
  if (typeof value === 'string' && /^\s*\d+\s*$/.test(value)) return String(Number(value.trim()));
  return null;
}

type ParentOf = (sub: string) => string | null;

// Kuaidi100's advanced table files 100x under 0, 1xx-5xx under their first digit, the customs steps 10-13
// under 8, and 14 拒签 under 4 退签: a refusal arrives as state 4 with a newest statusCode 14.
const K100_PARENT: ParentOf = (sub) =>
  sub.length === 4 ? '0' : sub.length === 3 ? sub[0] : sub === '14' ? '4' : sub.length === 2 ? '8' : null;
// Kdniao's StateEx codes sit under their first digit.
const KDN_PARENT: ParentOf = (sub) => (sub.length === 3 ? sub[0] : null);

/**
 * Pick the finer of a top-level code and an advanced sub-code: the sub-code wins when it refines the
 * top code (the provider's own parent table), or when the top code is missing or unknown.
 */
function refine(
  map: Readonly<Record<string, TrackState>>,
  parentOf: ParentOf,
  top: string | null,
  sub: string | null,
): string | null {
  if (sub && map[sub] !== undefined) {
    if (top === null || map[top] === undefined) return sub;
    if (parentOf(sub) === top || sub === top) return sub;
  }
  return top;
}

function mapWith(
  map: Readonly<Record<string, TrackState>>,
  parentOf: ParentOf,
  locker: Set<string>,
  top: unknown,
  sub: unknown,
): MappedState {
  const code = refine(map, parentOf, codeOf(top), codeOf(sub));
  if (code === null) return { state: 'UNKNOWN', at_locker: false };
  return { state: map[code] ?? 'UNKNOWN', at_locker: locker.has(code) };
}

/** Kuaidi100: top-level `state`, refined by the newest trace's `statusCode` when resultv2=4 gave one. */
export function mapKuaidi100(state: unknown, statusCode?: unknown): MappedState {
  return mapWith(K100, K100_PARENT, K100_LOCKER, state, statusCode);
}

/** Kdniao: `State`, refined by `StateEx` (RequestType 8001 only). */
export function mapKdniao(state: unknown, stateEx?: unknown): MappedState {
  return mapWith(KDN, KDN_PARENT, KDN_LOCKER, state, stateEx);
}
