// F2 + F24: connection caps and socket timeouts with real sockets on loopback. The attacker connects from
// 127.0.0.2 (all of 127.0.0.0/8 is loopback on Linux), the legitimate client from 127.0.0.1, so the per-address
// cap can tell them apart. Scaled down: caps of tens and deadlines of hundreds of ms instead of 10,000 and seconds.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { type EdgeSettings, readEdgeSettings, type TrustProxy } from '../../core/config/edge-env.js';
import {
  addressGroup,
  defaultMaxConnections,
  defaultPerIpCap,
  openFileLimit,
  prefixGroup,
} from '../../core/http/connection-limits.js';
import { createGatewayServer, listen } from '../../core/http/http-server.js';
import { createMemoryLogger } from '../../core/kernel/logger.js';

const ATTACKER = '127.0.0.2';

function edge(over: Partial<EdgeSettings>): EdgeSettings {
  return { ...readEdgeSettings({}), ...over };
}

async function startServer(over: Partial<EdgeSettings>, trust: TrustProxy = null) {
  const logger = createMemoryLogger('debug');
  const g = createGatewayServer(
    (req, res) => {
      // Reads the whole body first, as the gateway's body parser does.
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
    },
    edge(over),
    trust,
    logger,
  );
  const port = await listen(g.server, 0, '127.0.0.1');
  t.teardown(() => new Promise<void>((resolve) => (g.server.closeAllConnections(), g.server.close(() => resolve()))));
  return { ...g, port, logger };
}

interface Held {
  socket: Socket;
  closedAt: Promise<number>;
  received: () => string;
}

function hold(port: number, localAddress = ATTACKER): Promise<Held> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress });
    let data = '';
    socket.on('data', (c: Buffer) => (data += c.toString('latin1')));
    socket.on('error', () => undefined);
    const closedAt = new Promise<number>((r) => socket.on('close', () => r(Date.now())));
    socket.once('connect', () => resolve({ socket, closedAt, received: () => data }));
    socket.once('error', reject);
  });
}

function get(port: number, path = '/'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false, localAddress: '127.0.0.1' }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until cond holds or 3 s pass (a loaded CI machine may deliver the server's closes late). */
async function until(cond: () => boolean): Promise<void> {
  for (const end = Date.now() + 3000; !cond() && Date.now() < end; ) await settle(20);
}
const stillOpen = (held: Held[]) => held.filter((h) => !h.socket.destroyed && !h.socket.readableEnded).length;

t.test('one address holding 60 idle sockets is capped at 20; the total cap stays free for others', async (t) => {
  const s = await startServer({
    maxConnections: 50,
    maxConnectionsPerIp: 20,
    headersTimeoutMs: 20_000,
    requestTimeoutMs: 30_000,
  });
  const held = await Promise.all(Array.from({ length: 60 }, () => hold(s.port)));
  await until(() => stillOpen(held) <= 20);
  await settle(100);
  t.equal(stillOpen(held), 20, '40 sockets over the per-address cap were closed at once');
  t.equal(s.limits.open(ATTACKER), 20);
  t.equal(s.limits.maxConnections, 50);
  const legit = await get(s.port);
  t.equal(legit.status, 200, 'a client on another address is served while the attacker holds its 20');
  for (const h of held) h.socket.destroy();
  await Promise.all(held.map((h) => h.closedAt));
  await until(() => s.limits.open(ATTACKER) === 0);
  t.equal(s.limits.open(ATTACKER), 0, 'closed sockets give their place back');
  const refusals = s.logger.lines.filter((l) => l.message === 'connections over the per-address cap refused');
  t.match(refusals, [{ level: 'warn', address: ATTACKER, cap: 20 }], 'one warning for the burst, not 40 lines');
  t.equal(refusals.length, 1);
});

t.test('when idle sockets fill the total cap, a new client is served: the oldest idle socket makes room', async (t) => {
  const s = await startServer({
    maxConnections: 30,
    maxConnectionsPerIp: 0,
    headersTimeoutMs: 800,
    requestTimeoutMs: 1000,
  });
  const started = Date.now();
  const held: Held[] = [];
  // One at a time, so their age is their order.
  for (let i = 0; i < 30; i++) held.push(await hold(s.port));
  await until(() => s.limits.total() === 30);
  t.equal(s.limits.total(), 30, 'the total is reached');
  const served = await get(s.port);
  t.equal(served.status, 200, 'over MAX_CONNECTIONS a new client is served, not refused');
  await until(() => held[0]!.socket.destroyed || held[0]!.socket.readableEnded);
  t.equal(stillOpen(held), 29, 'the oldest socket that never sent a request was closed for it');
  t.ok(held[0]!.socket.destroyed || held[0]!.socket.readableEnded, 'the oldest one');
  t.match(
    s.logger.lines.filter((l) => /closed to make room/.test(String(l.message))),
    [{ level: 'warn' }],
  );
  const closed = await Promise.all(held.map((h) => h.closedAt));
  const slowest = Math.max(...closed) - started;
  t.ok(
    slowest < 3000,
    `every silent socket was cut after the 800 ms headers timeout (slowest ${slowest} ms; Node's default is 60-90 s)`,
  );
  const answer = held[1]!.received();
  t.match(answer, /^HTTP\/1\.1 408 Request Timeout\r\n/);
  t.match(answer, /Content-Type: application\/json; charset=utf-8/);
  const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
  t.match(body, { success: false, error: { code: 'REQUEST_TIMEOUT' }, deducted: 0, request_id: /^req_/ });
  t.equal((await get(s.port)).status, 200, 'served again once the idle sockets are gone');
});

t.test(
  'many addresses holding idle sockets: the last places are kept for light holders; a fresh address is served',
  async (t) => {
    // 12 attacker addresses x 10 sockets against a total of 60 and 10 per address: five addresses take 50; the
    // sixth stops at 54, where the last 6 places are kept for addresses holding fewer than 2; each later address
    // gets two of them. Full then, a client from another address is still served: the oldest socket that never
    // sent a request is closed for it.
    const s = await startServer({
      maxConnections: 60,
      maxConnectionsPerIp: 10,
      headersTimeoutMs: 20_000,
      requestTimeoutMs: 30_000,
    });
    const attackers = Array.from({ length: 12 }, (_, i) => `127.0.0.${i + 2}`);
    const held: Held[] = [];
    for (const a of attackers) held.push(...(await Promise.all(Array.from({ length: 10 }, () => hold(s.port, a)))));
    await until(() => stillOpen(held) <= 60);
    await settle(100);
    t.equal(s.limits.total(), 60, 'the total is reached');
    t.equal(stillOpen(held), 60);
    t.equal(s.limits.open('127.0.0.6'), 10);
    t.equal(s.limits.open('127.0.0.7'), 4, 'the sixth address stops where the kept places begin');
    t.equal(s.limits.open('127.0.0.8'), 2, 'a later address gets kept places while it holds fewer than 2');
    for (let i = 0; i < 5; i++) t.equal((await get(s.port)).status, 200, `fresh-address request ${i + 1} served`);
    // The attackers keep reconnecting: still refused, and the fresh address is still served.
    const again = await Promise.all(attackers.map((a) => hold(s.port, a)));
    await settle(100);
    t.ok(s.limits.total() <= 60, 'the total holds');
    t.equal(stillOpen(again.slice(0, 6)), 0, 'an address holding many gets no place');
    t.equal((await get(s.port)).status, 200);
    t.match(
      s.logger.lines.filter((l) => /kept for addresses holding few/.test(String(l.message))),
      [{ level: 'warn', cap: 60 }],
      'one line a minute, however many were refused',
    );
    for (const h of [...held, ...again]) h.socket.destroy();
  },
);

t.test('a slow body (1 byte every 200 ms) is cut at the request timeout', async (t) => {
  const s = await startServer({ maxConnectionsPerIp: 0, headersTimeoutMs: 300, requestTimeoutMs: 1200 });
  const h = await hold(s.port);
  const started = Date.now();
  h.socket.write(
    'POST /api/phone HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n',
  );
  const drip = setInterval(() => h.socket.writable && h.socket.write('{'), 200);
  const closedAt = await h.closedAt;
  clearInterval(drip);
  const took = closedAt - started;
  t.ok(took >= 1100 && took < 4000, `cut after ${took} ms (REQUEST_TIMEOUT_MS 1200; Node's default is 300 s)`);
  t.match(h.received(), /^HTTP\/1\.1 408 /);
  t.match(h.received(), /"code":"REQUEST_TIMEOUT"/);
});

t.test('a response slower than the request timeout is still delivered (a long plugin call is never cut)', async (t) => {
  const logger = createMemoryLogger('debug');
  const g = createGatewayServer(
    (req, res) => {
      req.resume();
      req.on('end', () => setTimeout(() => res.writeHead(200).end('late but whole'), 1500));
    },
    edge({ headersTimeoutMs: 300, requestTimeoutMs: 600 }),
    null,
    logger,
  );
  const port = await listen(g.server, 0, '127.0.0.1');
  t.teardown(() => new Promise<void>((resolve) => (g.server.closeAllConnections(), g.server.close(() => resolve()))));
  const r = await get(port);
  t.same(
    r,
    { status: 200, body: 'late but whole' },
    'REQUEST_TIMEOUT_MS bounds receiving the request, not answering it',
  );
});

t.test('a client that stops reading a response is cut after the idle socket timeout', async (t) => {
  const logger = createMemoryLogger('debug');
  let cut: (at: number) => void = () => undefined;
  const serverSaw = new Promise<number>((r) => (cut = r));
  const g = createGatewayServer(
    (req, res) => {
      req.socket.on('close', () => cut(Date.now()));
      // 32 MiB: far more than the socket buffers hold, so the write stalls on the client that never reads.
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(Buffer.alloc(32 * 1024 * 1024));
    },
    edge({ idleSocketTimeoutMs: 500 }),
    null,
    logger,
  );
  const port = await listen(g.server, 0, '127.0.0.1');
  t.teardown(() => new Promise<void>((resolve) => (g.server.closeAllConnections(), g.server.close(() => resolve()))));
  const reader = connect({ port, host: '127.0.0.1' });
  reader.on('error', () => undefined);
  let received = 0;
  reader.on('data', (c: Buffer) => (received += c.length));
  const readerClosed = new Promise((r) => reader.on('close', r));
  reader.pause();
  const started = Date.now();
  reader.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
  const at = await serverSaw;
  reader.resume();
  await readerClosed;
  t.ok(received < 32 * 1024 * 1024, `the client got ${received} bytes of a 32 MiB body before the cut`);
  t.ok(at - started < 3000, `socket closed ${at - started} ms after the reader stalled (IDLE_SOCKET_TIMEOUT_MS 500)`);
});

t.test('slow headers (slowloris) are cut at the headers timeout', async (t) => {
  const s = await startServer({ maxConnectionsPerIp: 0, headersTimeoutMs: 500, requestTimeoutMs: 5000 });
  const h = await hold(s.port);
  const started = Date.now();
  h.socket.write('GET / HTTP/1.1\r\nHost: x\r\n');
  const drip = setInterval(() => h.socket.writable && h.socket.write('X-a: b\r\n'), 100);
  const closedAt = await h.closedAt;
  clearInterval(drip);
  t.ok(closedAt - started < 3000, `cut after ${closedAt - started} ms`);
  t.match(h.received(), /^HTTP\/1\.1 408 /);
});

t.test('an idle kept-alive socket is closed after the keep-alive timeout', async (t) => {
  const s = await startServer({ maxConnectionsPerIp: 0, keepAliveTimeoutMs: 300 });
  const h = await hold(s.port, '127.0.0.1');
  h.socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
  const started = Date.now();
  const closedAt = await h.closedAt;
  t.match(h.received(), /^HTTP\/1\.1 200 OK\r\n[\s\S]*Keep-Alive: timeout=0?\b/);
  t.ok(closedAt - started < 3000, `closed ${closedAt - started} ms after the response`);
});

t.test('trusted proxies (TRUST_PROXY CIDRs) are exempt from the per-address cap', async (t) => {
  const s = await startServer(
    { maxConnections: 100, maxConnectionsPerIp: 3, headersTimeoutMs: 20_000, requestTimeoutMs: 30_000 },
    { cidrs: ['127.0.0.2/32'] },
  );
  const held = await Promise.all(Array.from({ length: 8 }, () => hold(s.port)));
  const others = await Promise.all(Array.from({ length: 5 }, () => hold(s.port, '127.0.0.3')));
  await until(() => stillOpen(others) <= 3);
  await settle(100);
  t.equal(stillOpen(others), 3, 'anyone else is capped at 3');
  t.equal(stillOpen(held), 8, 'the balancer keeps all 8');
  for (const h of [...held, ...others]) h.socket.destroy();
});

t.test('defaults: total cap from the open-file limit, per-address cap off behind a hop-count proxy', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'edge-limits-'));
  const file = join(dir, 'limits');
  writeFileSync(
    file,
    'Limit                     Soft Limit           Hard Limit           Units\nMax open files            1024                 4096                 files\n',
  );
  t.equal(openFileLimit(file), 1024);
  t.equal(openFileLimit(join(dir, 'missing')), null);
  t.equal(defaultMaxConnections(1024), 512, 'half the descriptors stay for upstream sockets, the database and files');
  t.equal(defaultMaxConnections(20_000), 10_000);
  t.equal(defaultMaxConnections(1_048_576), 10_000);
  t.equal(defaultMaxConnections(null), 10_000);
  t.equal(defaultPerIpCap(null), 256);
  t.equal(defaultPerIpCap({ cidrs: ['10.0.0.0/8'] }), 256);
  t.equal(defaultPerIpCap({ hops: 1 }), 0, 'every connection comes from the balancer: a per-address cap would cap it');
  const d = readEdgeSettings({});
  t.same(d, {
    maxConnections: null,
    maxConnectionsPerIp: null,
    headersTimeoutMs: 10_000,
    requestTimeoutMs: 30_000,
    keepAliveTimeoutMs: 5_000,
    idleSocketTimeoutMs: 150_000,
    maxHeaderBytes: 65_536,
    metricsListen: null,
  });
  t.throws(
    () => readEdgeSettings({ HEADERS_TIMEOUT_MS: '40000' }),
    /HEADERS_TIMEOUT_MS \(40000\) must not exceed REQUEST_TIMEOUT_MS \(30000\)/,
  );
  t.throws(() => readEdgeSettings({ MAX_CONNECTIONS: '0' }), /MAX_CONNECTIONS must be an integer from 1/);
  t.throws(() => readEdgeSettings({ MAX_HEADER_BYTES: '100' }), /MAX_HEADER_BYTES must be an integer from 8192/);
  t.same(readEdgeSettings({ METRICS_LISTEN: '9464' }).metricsListen, { host: '127.0.0.1', port: 9464 });
  t.same(readEdgeSettings({ METRICS_LISTEN: '[::1]:9464' }).metricsListen, { host: '::1', port: 9464 });
  t.throws(() => readEdgeSettings({ METRICS_LISTEN: 'localhost:99999' }), /METRICS_LISTEN must be host:port/);
  const s = await startServer({});
  t.equal(s.server.headersTimeout, 10_000);
  t.equal(s.server.requestTimeout, 30_000);
  t.equal(s.server.keepAliveTimeout, 5_000);
  t.equal(s.server.timeout, 150_000);
  t.equal(s.limits.perIp, 256);
  t.ok(s.limits.maxConnections >= 16 && s.limits.maxConnections <= 10_000);
});

t.test('the per-address cap counts an IPv4 address, or the /64 of an IPv6 one; the /48 cap a whole site', async (t) => {
  t.equal(prefixGroup('2001:db8:1:2:3:4:5:6'), '2001:db8:1::/48');
  t.equal(prefixGroup('2001:db8:1:ff00::1'), '2001:db8:1::/48', 'another /64 of the same /48');
  t.equal(prefixGroup('2001:0db8::1'), '2001:db8:0::/48');
  t.equal(prefixGroup('198.51.100.9'), null, 'IPv4 has no /48');
  t.equal(prefixGroup('::ffff:198.51.100.9'), null);
  t.equal(addressGroup('198.51.100.9'), '198.51.100.9');
  t.equal(addressGroup('::ffff:198.51.100.9'), '198.51.100.9', 'dual-stack spelling of the same client');
  t.equal(addressGroup('2001:db8:1:2:3:4:5:6'), '2001:db8:1:2::/64');
  t.equal(addressGroup('2001:db8:1:2::9'), '2001:db8:1:2::/64', 'another address of the same host');
  t.equal(addressGroup('2001:0db8:0000:0002:aaaa::1'), '2001:db8:0:2::/64');
  t.equal(addressGroup('2001:db8::1'), '2001:db8:0:0::/64');
  t.equal(addressGroup('2001:db8:1:2:a:b:1.2.3.4'), '2001:db8:1:2::/64');
});

t.test(
  'MAX_CONNECTIONS above the open-file limit is warned about at start',
  { skip: openFileLimit() === null && 'no /proc/self/limits here' },
  async (t) => {
    const s = await startServer({ maxConnections: (openFileLimit() ?? 0) + 1 });
    const warned = (lines: Array<Record<string, unknown>>) =>
      lines.some(
        (l) => l.level === 'warn' && /MAX_CONNECTIONS is close to or above the open-file limit/.test(String(l.message)),
      );
    t.ok(warned(s.logger.lines));
    const fine = await startServer({ maxConnections: 100 });
    t.notOk(warned(fine.logger.lines));
  },
);
