// A small fault-injecting TCP proxy for dependency tests: put it between the gateway and PostgreSQL or Redis
// and switch modes while the test runs, without touching the shared servers.
//   pass  forward both ways (bytes held during a hang are delivered first, so protocols stay in step)
//   hang  accept connections but move no bytes either way: a server that stopped answering
//   drop  reset every open connection and refuse new ones: a server that went away
// and freezeOpen(): the connections open now go silent for good while new ones pass, as after a failover or a
// network partition that left half-dead TCP connections behind.
import net from 'node:net';

export type FaultMode = 'pass' | 'hang' | 'drop';

interface Pair {
  client: net.Socket;
  upstream: net.Socket | null;
  /** Bytes held while hanging, per direction. */
  toUpstream: Buffer[];
  toClient: Buffer[];
  /** Silent for good: bytes either way are dropped. */
  frozen: boolean;
}

export interface FaultProxy {
  port: number;
  /** redis://… or postgres://… URL with host:port replaced by the proxy. */
  url(target: string): string;
  readonly mode: FaultMode;
  setMode(mode: FaultMode): void;
  /** Every connection open now stops moving bytes for good (they stay open); new connections follow the mode. */
  freezeOpen(): void;
  /** Connections accepted so far (shows a client really went through the proxy). */
  readonly accepted: number;
  /** Sees every chunk a client sends, as it arrives (a test counts round trips with it). */
  watch(listener: (chunk: Buffer) => void): void;
  close(): Promise<void>;
}

export async function startFaultProxy(
  targetHost: string,
  targetPort: number,
  initial: FaultMode = 'pass',
): Promise<FaultProxy> {
  let mode: FaultMode = initial;
  let accepted = 0;
  const pairs = new Set<Pair>();
  const watchers: Array<(chunk: Buffer) => void> = [];

  const end = (p: Pair): void => {
    pairs.delete(p);
    p.client.destroy();
    p.upstream?.destroy();
  };
  const flush = (p: Pair): void => {
    if (!p.upstream) return;
    for (const b of p.toUpstream.splice(0)) p.upstream.write(b);
    for (const b of p.toClient.splice(0)) p.client.write(b);
  };
  const connectUpstream = (p: Pair): void => {
    const up = net.connect(targetPort, targetHost);
    p.upstream = up;
    up.on('data', (b: Buffer) => {
      if (p.frozen) return;
      if (mode === 'pass') p.client.write(b);
      else p.toClient.push(b);
    });
    up.on('connect', () => mode === 'pass' && flush(p));
    up.on('error', () => end(p));
    up.on('close', () => end(p));
  };

  const server = net.createServer((client) => {
    accepted++;
    if (mode === 'drop') {
      client.resetAndDestroy();
      return;
    }
    const p: Pair = { client, upstream: null, toUpstream: [], toClient: [], frozen: false };
    pairs.add(p);
    client.on('data', (b: Buffer) => {
      for (const w of watchers) w(b);
      if (p.frozen) return;
      if (mode === 'pass' && p.upstream?.readyState === 'open') p.upstream.write(b);
      else p.toUpstream.push(b);
    });
    client.on('error', () => end(p));
    client.on('close', () => end(p));
    if (mode === 'pass') connectUpstream(p);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;

  return {
    port,
    url(target) {
      const u = new URL(target);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    get mode() {
      return mode;
    },
    get accepted() {
      return accepted;
    },
    watch(listener) {
      watchers.push(listener);
    },
    setMode(next) {
      mode = next;
      for (const p of [...pairs]) {
        if (p.frozen) continue;
        if (next === 'drop') {
          p.client.resetAndDestroy();
          end(p);
        } else if (next === 'pass') {
          if (!p.upstream) connectUpstream(p);
          else if (p.upstream.readyState === 'open') flush(p);
        }
      }
    },
    freezeOpen() {
      for (const p of pairs) p.frozen = true;
    },
    async close() {
      for (const p of [...pairs]) end(p);
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
