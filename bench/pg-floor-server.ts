// The bench's PostgreSQL floor row: the least a billed GET /api/phone costs on PostgreSQL here, beside the gateway's
// PostgreSQL rows. Like floor-server.ts (SQLite), it does what every billed call must do and nothing else, but the
// gateway's way on a shared database: the key's hash looked up in memory, the phone lookups of one event-loop turn
// in one synchronous call into an isolate, then each call's charge as the gateway sends an offline plugin's (one
// job of its group commit, core/billing/pg-money.ts: the guarded debit, ledger row and call-log row of concurrent
// calls in one statement and one commit), each caller answered after its commit with the gateway's envelope and
// headers. No Redis (limits, slots, cache), validation, plans, idempotency, metrics or logs.
//   DATABASE_URL=<url> DATABASE_SCHEMA=<migrated schema> PORT=<port> node --no-node-snapshot --import ./core/bin/load-ts.mjs bench/pg-floor-server.ts
import { createServer } from 'node:http';
import { newRequestId, sha256Hex } from '../core/accounts/secrets.js';
import { PgMoneyBatch } from '../core/billing/pg-money.js';
import { toToken } from '../core/kernel/money.js';
import { openStore } from '../core/store/database.js';
import { answer, type Call, failure } from './floor-answer.js';
import { phoneLookupMany } from './phone-lookup.js';

const PRICE = 5000; // micro-TOKEN: phone's price in operations.yaml

const store = openStore({ databaseUrl: process.env.DATABASE_URL!, dataDir: '.', schema: process.env.DATABASE_SCHEMA });
const money = new PgMoneyBatch(store.db);
const keys = new Map<string, { keyId: number; userId: number }>();
for (const k of await store.db.selectFrom('api_keys').select(['id', 'user_id', 'key_hash']).execute())
  keys.set(k.key_hash, { keyId: Number(k.id), userId: Number(k.user_id) });

const { lookupMany } = await phoneLookupMany();

let turn: Call[] = [];

/** The calls of this turn: their lookups in one isolate call, then each charge queued for the next batch. */
function endTurn(): void {
  const calls = turn;
  turn = [];
  const outcomes = lookupMany.applySync(undefined, [calls.map((c) => c.phone)], {
    arguments: { copy: true },
    result: { copy: true },
  });
  calls.forEach((call, i) => {
    const outcome = outcomes[i];
    if (!outcome.ok) {
      answer(call, 400, failure(call, 'INVALID_INPUT'));
      return;
    }
    const data = JSON.stringify(outcome.data);
    const ms = Number(process.hrtime.bigint() - call.startedNs) / 1e6;
    const row = [call.requestId, call.userId, call.keyId, 'phone', 200, null, PRICE, 0, null, ms, null, call.ip];
    const rows = [[...row, Date.now()]];
    money.run({ k: 's', id: call.requestId, u: call.userId, a: PRICE, op: 'phone', rows }).then(
      (balance) =>
        typeof balance === 'number'
          ? answer(
              call,
              200,
              `{"success":true,"data":${data},"deducted":${toToken(PRICE)},"remaining":${toToken(balance)},"cached":false,"request_id":"${call.requestId}"}`,
            )
          : balance === false
            ? answer(call, 402, failure(call, 'INSUFFICIENT_BALANCE'))
            : answer(call, 503, failure(call, 'UNAVAILABLE')),
      () => answer(call, 503, failure(call, 'UNAVAILABLE')),
    );
  });
}

const server = createServer((req, res) => {
  const startedNs = process.hrtime.bigint();
  const requestId = newRequestId();
  const key = req.headers['x-api-key'];
  const found = typeof key === 'string' ? keys.get(sha256Hex(key)) : undefined;
  const call = { res, requestId, startedNs, phone: '', userId: 0, keyId: 0, ip: req.socket.remoteAddress ?? '' };
  if (!found) return answer(call, 401, failure(call, 'INVALID_API_KEY'));
  const phone = new URLSearchParams((req.url ?? '').split('?')[1] ?? '').get('phone') ?? '';
  turn.push({ ...call, phone, userId: found.userId, keyId: found.keyId });
  if (turn.length === 1) setImmediate(endTurn);
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('listening\n'));
process.on('SIGTERM', () => {
  server.close();
  void store.close().then(() => process.exit(0));
});
