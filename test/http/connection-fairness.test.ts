// The admission rules of core/http/connection-fairness.ts on plain objects (real sockets: test/security/
// edge-connections.test.ts): per-address and per-/48 caps, the places kept for addresses holding few, and room made
// by closing the oldest connection that has not sent a request. IPv6 is tested here: loopback has only ::1.
import t from 'tap';
import { ConnectionTable, fairnessOptions } from '../../core/http/connection-fairness.js';
import { addressGroup, prefixGroup } from '../../core/http/connection-limits.js';

interface Conn {
  id: string;
}

function table(max: number, perGroup: number) {
  const closed: string[] = [];
  const tbl = new ConnectionTable<Conn>(fairnessOptions(max, perGroup), (c) => closed.push(c.id));
  const admit = (id: string, address: string | null) =>
    tbl.admit({ id }, address === null ? null : addressGroup(address), address === null ? null : prefixGroup(address));
  return { tbl, closed, admit };
}

t.test('defaults: a /48 holds four addresses worth; a tenth of the total is kept for light holders', async (t) => {
  t.same(fairnessOptions(10_000, 256), { max: 10_000, perGroup: 256, perPrefix: 1024, reserve: 1000, heavy: 8 });
  t.same(fairnessOptions(60, 10), { max: 60, perGroup: 10, perPrefix: 40, reserve: 6, heavy: 2 });
});

t.test('an IPv6 /56 (256 /64 groups) is held to the /48 cap, another /48 is not', async (t) => {
  const { tbl, admit } = table(10_000, 256);
  const verdicts = new Map<string, number>();
  for (let g = 0; g < 256; g++)
    for (let i = 0; i < 8; i++) {
      const v = admit(`${g}.${i}`, `2001:db8:1:${(0xab00 + g).toString(16)}::${i + 1}`);
      verdicts.set(v, (verdicts.get(v) ?? 0) + 1);
    }
  t.same(Object.fromEntries(verdicts), { admitted: 1024, 'per-prefix': 2048 - 1024 });
  t.equal(tbl.openPrefix('2001:db8:1::/48'), 1024);
  t.equal(admit('other', '2001:db8:2::1'), 'admitted', 'another site');
  t.equal(admit('v4', '198.51.100.1'), 'admitted');
});

t.test('per-address cap, then the reserve: a heavy holder is refused near the total, a light one is not', async (t) => {
  const { tbl, admit } = table(20, 10);
  for (let i = 0; i < 10; i++) t.equal(admit(`a${i}`, '10.0.0.1'), 'admitted');
  t.equal(admit('a10', '10.0.0.1'), 'per-address');
  for (let i = 0; i < 8; i++) t.equal(admit(`b${i}`, '10.0.0.2'), 'admitted');
  t.equal(tbl.size, 18, 'the reserve (2 places) starts here');
  t.equal(admit('b8', '10.0.0.2'), 'share', 'an address holding 8 may not take a kept place');
  t.equal(admit('c0', '10.0.0.3'), 'admitted', 'a new address may');
  t.equal(admit('c1', '10.0.0.3'), 'admitted', 'holding 1 (< heavy 2) it still may');
  t.equal(tbl.size, 20);
  t.equal(admit('c2', '10.0.0.3'), 'share');
});

t.test(
  'full: the oldest connection without a request is closed; served ones and exempt holders are kept',
  async (t) => {
    const { tbl, closed, admit } = table(5, 0);
    const conns: Conn[] = [];
    for (let i = 0; i < 5; i++) {
      const c = { id: `p${i}` };
      conns.push(c);
      t.equal(tbl.admit(c, null, null), 'admitted', 'per-address counting off: exempt from the caps');
    }
    tbl.served(conns[0]!);
    tbl.served(conns[2]!);
    t.equal(admit('n1', null), 'admitted');
    t.same(closed, ['p1'], 'p0 sent a request; p1 is the oldest that did not');
    t.equal(admit('n2', null), 'admitted');
    t.same(closed, ['p1', 'p3']);
    tbl.remove(conns[1]!); // its close event, after it was closed: nothing more
    t.equal(tbl.size, 5);
    t.equal(admit('n3', null), 'admitted');
    t.same(closed, ['p1', 'p3', 'p4']);
  },
);

t.test('full and every connection has sent a request: the new one is refused', async (t) => {
  const { tbl } = table(2, 0);
  const a = { id: 'a' };
  const b = { id: 'b' };
  tbl.admit(a, null, null);
  tbl.admit(b, null, null);
  tbl.served(a);
  tbl.served(b);
  t.equal(tbl.admit({ id: 'c' }, null, null), 'full');
  tbl.remove(a);
  t.equal(tbl.admit({ id: 'c' }, null, null), 'admitted', 'a closed connection gives its place back');
});
