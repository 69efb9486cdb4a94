// Where /metrics is served. It shows revenue and traffic per operation, so it is never public: on the main port it
// needs METRICS_TOKEN (Bearer), and METRICS_LISTEN serves it on a separate address (e.g. loopback or a private
// interface) with no token. With neither set, the main port answers 404.
import { createServer, type Server } from 'node:http';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import type { Services } from '../services.js';
import { ApiError } from './errors.js';
import { edgeEnvelope } from './client-error.js';

function metricsText(s: Services): string {
  return s.metrics.render({ tollgate_uptime_seconds: Math.round((Date.now() - s.startedAt) / 1000) });
}

const digest = (v: string): Buffer => createHash('sha256').update(v).digest();

/** Handler of GET /metrics on the main port. */
export function metricsRoute(s: Services): (ctx: Context) => void {
  const token = s.settings.metricsToken;
  // Compare digests so the comparison takes the same time whatever the length or the first wrong byte.
  const expected = token ? digest(`Bearer ${token}`) : null;
  return (ctx) => {
    if (!expected) throw new ApiError('RESOURCE_NOT_FOUND', 'There is nothing at GET /metrics.');
    if (!timingSafeEqual(digest(ctx.get('authorization')), expected)) {
      ctx.set('WWW-Authenticate', 'Bearer realm="metrics"');
      throw new ApiError('UNAUTHORIZED', 'Metrics need the metrics bearer token: Authorization: Bearer <token>.');
    }
    ctx.type = 'text/plain; version=0.0.4';
    ctx.body = metricsText(s);
  };
}

/** The METRICS_LISTEN listener: GET /metrics and nothing else. */
export function createMetricsServer(s: Services): Server {
  return createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if ((req.method === 'GET' || req.method === 'HEAD') && path === '/metrics') {
      res.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4' });
      res.end(req.method === 'HEAD' ? undefined : metricsText(s));
      return;
    }
    const { status, headers, body } = edgeEnvelope('RESOURCE_NOT_FOUND');
    res.writeHead(status, headers).end(body);
  });
}
