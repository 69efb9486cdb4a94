// The listening HTTP server with its edge settings chosen on purpose (Node's defaults let a silent socket live
// 60-90 s and a slow body 300 s): timeouts, header size, connection caps, and enveloped parser errors.
import { createServer, type RequestListener, type Server } from 'node:http';
import type { EdgeSettings, TrustProxy } from '../config/edge-env.js';
import type { Logger } from '../kernel/logger.js';
import { onClientError } from './client-error.js';
import {
  applyConnectionLimits,
  type ConnectionLimits,
  defaultMaxConnections,
  defaultPerIpCap,
  openFileLimit,
} from './connection-limits.js';

export interface GatewayServer {
  server: Server;
  limits: ConnectionLimits;
}

/**
 * How often Node scans open connections for expired header/request deadlines. Its default (30 s) lets a
 * deadline overrun by up to 30 s; one scan a second is cheap (a C++ list walk) and keeps the deadlines honest.
 */
export function checkingIntervalMs(edge: EdgeSettings): number {
  return Math.max(50, Math.min(1000, Math.floor(edge.headersTimeoutMs / 4)));
}

export function createGatewayServer(
  handler: RequestListener,
  edge: EdgeSettings,
  trust: TrustProxy,
  logger: Logger,
): GatewayServer {
  const server = createServer(
    {
      headersTimeout: edge.headersTimeoutMs,
      requestTimeout: edge.requestTimeoutMs,
      maxHeaderSize: edge.maxHeaderBytes,
      connectionsCheckingInterval: checkingIntervalMs(edge),
    },
    handler,
  );
  server.keepAliveTimeout = edge.keepAliveTimeoutMs;
  // Inactivity while a response is pending (e.g. a client that stopped reading). Above every operation deadline
  // (at most 120 s), so a slow plugin call is never cut after it was billed.
  server.timeout = edge.idleSocketTimeoutMs;
  server.on('clientError', onClientError);
  const fileLimit = openFileLimit();
  const maxConnections = edge.maxConnections ?? defaultMaxConnections(fileLimit);
  // Sockets past the descriptor limit fail in accept() for everyone; say so at start, not during an incident.
  if (fileLimit !== null && maxConnections > fileLimit - 256) {
    logger.warn(
      'MAX_CONNECTIONS is close to or above the open-file limit; raise the limit (ulimit -n) or lower MAX_CONNECTIONS',
      { max_connections: maxConnections, open_file_limit: fileLimit },
    );
  }
  const limits = applyConnectionLimits(server, {
    maxConnections,
    perIp: edge.maxConnectionsPerIp ?? defaultPerIpCap(trust),
    trust,
    logger,
  });
  return { server, limits };
}

export async function listen(server: Server, port: number, host?: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  return typeof address === 'object' && address ? address.port : port;
}
