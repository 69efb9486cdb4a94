// Environment -> the HTTP edge's settings: who is a trusted proxy, connection caps, socket timeouts, header size,
// where /metrics listens. Parsed once at start; README "Limits and timeouts" documents every variable.
import { isIP } from 'node:net';

/** TRUST_PROXY: off, a count of proxy hops in front of us, or the proxies' own addresses (CIDR blocks). */
export type TrustProxy = null | { hops: number } | { cidrs: string[] };

export interface EdgeSettings {
  /** server.maxConnections; null = derived at start from the process's open-file limit (see connection-limits.ts). */
  maxConnections: number | null;
  /** Open sockets per client address; 0 = no cap; null = 256, or off when TRUST_PROXY is a hop count. */
  maxConnectionsPerIp: number | null;
  /** Time a client has to send the request line and headers (also how long a silent new socket may live). */
  headersTimeoutMs: number;
  /** Time a client has to send the whole request, body included: cuts slow bodies. */
  requestTimeoutMs: number;
  /** Idle time allowed on a kept-alive socket between two requests. */
  keepAliveTimeoutMs: number;
  /** Inactivity on a socket while a response is pending (a client that stops reading); above every operation deadline. */
  idleSocketTimeoutMs: number;
  /** Largest request line plus headers, bytes. */
  maxHeaderBytes: number;
  /** A second listener serving only /metrics, e.g. 127.0.0.1:9464; null = none. */
  metricsListen: { host: string; port: number } | null;
}

function int(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new Error(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  return n;
}

function optionalInt(env: NodeJS.ProcessEnv, name: string, min: number): number | null {
  return env[name] === undefined || env[name] === '' ? null : int(env, name, 0, min);
}

/** A CIDR block or a single address, checked now so a typo fails the start instead of trusting nobody (or everybody). */
function cidr(entry: string): string {
  const [net, bits, extra] = entry.split('/');
  const family = isIP(net ?? '');
  const max = family === 6 ? 128 : 32;
  if (!family || extra !== undefined || (bits !== undefined && !(/^\d{1,3}$/.test(bits) && Number(bits) <= max))) {
    throw new Error(`TRUST_PROXY entry "${entry}" is not an IP address or CIDR block (e.g. 10.0.0.0/8, fd00::/8)`);
  }
  return entry;
}

/**
 * `TRUST_PROXY=1` (hops) or `TRUST_PROXY=10.0.0.0/8,192.168.1.5` (proxy addresses). `true` is refused on purpose:
 * "trust every hop" makes the client-written left-most X-Forwarded-For entry the IP, which bypasses ip_allow.
 */
export function parseTrustProxy(raw: string | undefined): TrustProxy {
  const v = (raw ?? '').trim();
  if (v === '' || v === '0' || v === 'false') return null;
  if (/^\d+$/.test(v)) {
    const hops = Number(v);
    if (hops > 16) throw new Error(`TRUST_PROXY hop count must be from 0 to 16, got "${raw}"`);
    return { hops };
  }
  if (v === 'true') {
    throw new Error(
      'TRUST_PROXY=true would trust a client-written X-Forwarded-For; give the number of proxies in front (e.g. 1) or their CIDR blocks',
    );
  }
  return {
    cidrs: v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .map(cidr),
  };
}

function listenAddress(raw: string | undefined): EdgeSettings['metricsListen'] {
  if (!raw) return null;
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:]+)):(\d{1,5})$/.exec(raw) ?? /^()()(\d{1,5})$/.exec(raw);
  const port = m ? Number(m[3]) : NaN;
  if (!m || port < 1 || port > 65535)
    throw new Error(`METRICS_LISTEN must be host:port or a port, e.g. 127.0.0.1:9464, got "${raw}"`);
  return { host: m[1] || m[2] || '127.0.0.1', port };
}

export function readEdgeSettings(env: NodeJS.ProcessEnv): EdgeSettings {
  const headersTimeoutMs = int(env, 'HEADERS_TIMEOUT_MS', 10_000, 100);
  const requestTimeoutMs = int(env, 'REQUEST_TIMEOUT_MS', 30_000, 100);
  // Node refuses a headers timeout above the request timeout; say which variable to fix instead of its stack.
  if (headersTimeoutMs > requestTimeoutMs)
    throw new Error(
      `HEADERS_TIMEOUT_MS (${headersTimeoutMs}) must not exceed REQUEST_TIMEOUT_MS (${requestTimeoutMs})`,
    );
  return {
    maxConnections: optionalInt(env, 'MAX_CONNECTIONS', 1),
    maxConnectionsPerIp: optionalInt(env, 'MAX_CONNECTIONS_PER_IP', 0),
    headersTimeoutMs,
    requestTimeoutMs,
    keepAliveTimeoutMs: int(env, 'KEEP_ALIVE_TIMEOUT_MS', 5_000, 100),
    idleSocketTimeoutMs: int(env, 'IDLE_SOCKET_TIMEOUT_MS', 150_000, 1_000),
    maxHeaderBytes: int(env, 'MAX_HEADER_BYTES', 64 * 1024, 8 * 1024, 1024 * 1024),
    metricsListen: listenAddress(env.METRICS_LISTEN),
  };
}
