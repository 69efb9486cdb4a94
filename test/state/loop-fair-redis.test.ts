// The Redis command deadline against a stalled event loop: a reply that arrived while the thread was busy past
// the deadline settles its command (plain ioredis declares it timed out, which opened the state's breaker and
// refused plan-quota calls with 503), and a Redis that never answers still fails the command. Uses the local
// Redis (REDIS_URL, default redis://127.0.0.1:6379; skipped when unreachable) and a silent TCP server.
import { once } from 'node:events';
import { createServer, type Socket } from 'node:net';
import { Redis, type RedisOptions } from 'ioredis';
import t from 'tap';
import { LoopFairRedis } from '../../core/state/loop-fair-redis.js';

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const OPTIONS: RedisOptions = { commandTimeout: 100, maxRetriesPerRequest: 0, enableOfflineQueue: false };

/** Keep the thread busy for `ms` (what a long collection or a starved CPU does to the event loop). */
function busy(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    /* spin */
  }
}

async function connected(client: Redis): Promise<boolean> {
  if (client.status === 'ready') return true;
  const ready = once(client, 'ready').then(() => true);
  const failed = once(client, 'error').then(() => false);
  const late = new Promise<boolean>((r) => setTimeout(() => r(false), 2000));
  return Promise.race([ready, failed, late]);
}

/** PING sent, then the thread busy for 400 ms (4 deadlines) while Redis answers: what the caller learns. */
async function pingThroughAStall(client: Redis): Promise<string> {
  const reply = client.ping().catch((err: Error) => `rejected: ${err.message}`);
  busy(400);
  return reply;
}

t.test('a reply that came in while the thread was busy past the deadline settles its command', async (t) => {
  const fair = new LoopFairRedis(url, OPTIONS);
  const plain = new Redis(url, OPTIONS);
  t.teardown(() => {
    fair.disconnect();
    plain.disconnect();
  });
  if (!(await connected(fair)) || !(await connected(plain))) {
    t.comment('Redis is not reachable: skipped');
    return;
  }
  t.equal(await pingThroughAStall(plain), 'rejected: Command timed out', 'plain ioredis: timed out (the situation)');
  for (let i = 0; i < 5; i++) t.equal(await pingThroughAStall(fair), 'PONG', `stall ${i + 1}: answered`);
  t.equal(await fair.ping(), 'PONG', 'and commands without a stall as before');
});

t.test('a Redis that never answers still fails the command at its deadline', async (t) => {
  const sockets: Socket[] = [];
  const silent = createServer((s) => void sockets.push(s)); // accepts and reads, never answers
  silent.listen(0, '127.0.0.1');
  await once(silent, 'listening');
  const { port } = silent.address() as { port: number };
  const client = new LoopFairRedis({ ...OPTIONS, port, host: '127.0.0.1', enableReadyCheck: false });
  t.teardown(() => {
    client.disconnect();
    for (const s of sockets) s.destroy();
    silent.close();
  });
  await once(client, 'ready');
  const started = Date.now();
  const outcome = await client.ping().then(
    (v) => `answered ${v}`,
    (err: Error) => `rejected: ${err.message}`,
  );
  t.equal(outcome, 'rejected: Command timed out');
  t.ok(Date.now() - started >= 100, 'not before its deadline');
});
