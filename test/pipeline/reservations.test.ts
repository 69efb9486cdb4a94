// One list of reservations per call, settled in one place (core/pipeline/reservations.ts): kept on success, given
// back on failure, newest first, each once; one that fails to settle is logged and does not stop the others; the
// ones that need the answer wait for it.
import t from 'tap';
import { createMemoryLogger } from '../../core/kernel/logger.js';
import type { ApiCall, Outcome } from '../../core/pipeline/call.js';
import { reserve, settleReservations } from '../../core/pipeline/reservations.js';
import type { Services } from '../../core/services.js';

function fixture() {
  const logger = createMemoryLogger();
  const lines = logger.lines;
  const s = { logger } as unknown as Services;
  const call = { requestId: 'req_test', reservations: [] } as unknown as ApiCall;
  const seen: string[] = [];
  const entry = (name: string, opts: { fails?: boolean; afterAnswer?: boolean } = {}) =>
    reserve(call, {
      name,
      afterAnswer: opts.afterAnswer,
      keep: async (o: Outcome) => {
        seen.push(`keep ${name} ${o.charged}${o.status ? ` ${o.status}` : ''}`);
        if (opts.fails) throw new Error(`${name} is gone`);
      },
      giveBack: async (o: Outcome) => {
        seen.push(`giveBack ${name}${o.status ? ` ${o.status}` : ''}`);
        if (opts.fails) throw new Error(`${name} is gone`);
      },
    });
  return { s, call, seen, entry, lines };
}

t.test('a success keeps every entry, newest first, and the answer-bound one only once the answer exists', async (t) => {
  const { s, call, seen, entry } = fixture();
  entry('claim', { afterAnswer: true });
  entry('slot');
  entry('quota');
  entry('hold');
  await settleReservations(call, s, { ok: true, charged: 5000 });
  t.same(seen, ['keep hold 5000', 'keep quota 5000', 'keep slot 5000']);
  await settleReservations(call, s, { ok: true, charged: 5000 });
  t.same(seen.length, 3, 'settled once: a second pass finds nothing before the answer');
  await settleReservations(call, s, { ok: true, charged: 5000, status: 200, body: '{}' }, true);
  t.same(seen.slice(3), ['keep claim 5000 200']);
  t.same(call.reservations, [], 'nothing left');
});

t.test('a failure gives every entry back; one that fails to settle is logged and the others still run', async (t) => {
  const { s, call, seen, entry, lines } = fixture();
  entry('slot');
  entry('quota', { fails: true });
  entry('hold');
  await settleReservations(call, s, { ok: false, charged: 0 });
  t.same(seen, ['giveBack hold', 'giveBack quota', 'giveBack slot']);
  t.match(lines, [
    {
      level: 'error',
      message: 'settling a reservation failed',
      request_id: 'req_test',
      reservation: 'quota',
      reason: 'quota is gone',
    },
  ]);
});
