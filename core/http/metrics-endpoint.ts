// Where /metrics is served. It shows revenue and traffic per operation, so it is never public: on the main port it
// needs METRICS_TOKEN (Bearer), and METRICS_LISTEN serves it on a separate address (e.g. loopback or a private
// interface) with no token. With neither set, the main port answers 404.

import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { Context } from 'koa';
import type { MetricsSource } from '../kernel/metrics.js';
import { edgeEnvelope } from './client-error.js';
import { ApiError } from './errors.js';

/** Services, or the cluster primary's aggregate of its workers (core/cluster-metrics.ts). */
interface HasMetrics {
  metrics: MetricsSource;
}

const digest = (v: string): Buffer => createHash('sha256').update(v).digest();

/** Handler of GET /metrics on the main port. */
export function metricsRoute(
  s: HasMetrics & { settings: { metricsToken: string | null } },
): (ctx: Context) => Promise<void> {
  const token = s.settings.metricsToken;
  // Compare digests so the comparison takes the same time whatever the length or the first wrong byte.
  const expected = token ? digest(token) : null;
  return async (ctx) => {
    if (!expected) throw new ApiError('RESOURCE_NOT_FOUND', 'There is nothing at GET /metrics.');
    // The scheme is case-insensitive (RFC 9110); the token is compared whole.
    const given = /^bearer +(\S+)$/i.exec(ctx.get('authorization'))?.[1] ?? '';
    if (!timingSafeEqual(digest(given), expected)) {
      ctx.set('WWW-Authenticate', 'Bearer realm="metrics"');
      throw new ApiError('UNAUTHORIZED', 'Metrics need the metrics bearer token: Authorization: Bearer <token>.');
    }
    ctx.body = await s.metrics.text().catch(() => {
      throw new ApiError('UNAVAILABLE', 'Metrics are not available right now; try again.');
    });
    ctx.type = s.metrics.contentType;
  };
}

/** The METRICS_LISTEN listener: GET /metrics and nothing else. */
export function createMetricsServer(s: HasMetrics): Server {
  return createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if ((req.method === 'GET' || req.method === 'HEAD') && path === '/metrics') {
      s.metrics.text().then(
        (text) => {
          res.writeHead(200, { 'Content-Type': s.metrics.contentType });
          res.end(req.method === 'HEAD' ? undefined : text);
        },
        () => {
          // A worker that did not answer the primary in time: say so without details (they go to the log).
          const { status, headers, body } = edgeEnvelope('UNAVAILABLE');
          res.writeHead(status, headers).end(body);
        },
      );
      return;
    }
    const { status, headers, body } = edgeEnvelope('RESOURCE_NOT_FOUND');
    res.writeHead(status, headers).end(body);
  });
}
