// GET /api/health (no key): status, version, uptime, database and Redis reachability, operations loaded.
// 503 when the database is down; "degraded" (still 200) when Redis is down and limits fell back per process.
import type { Context } from 'koa';
import type { Services } from '../services.js';

export async function health(ctx: Context, s: Services): Promise<void> {
  let database: 'ok' | 'down' = 'ok';
  let databaseError: string | undefined;
  try {
    await s.store.ping();
  } catch (err) {
    database = 'down';
    databaseError = (err as Error).message;
  }
  const state = await s.state.health();
  const registry = s.registry.current;
  const ok = database === 'ok';
  ctx.status = ok ? 200 : 503;
  ctx.set('Cache-Control', 'no-store');
  ctx.body = {
    status: !ok ? 'down' : state.degraded ? 'degraded' : 'ok',
    version: s.version,
    uptime_s: Math.round((Date.now() - s.startedAt) / 1000),
    database: { status: database, dialect: s.store.dialect, ...(databaseError ? { error: databaseError } : {}) },
    state: { backend: state.backend, status: state.ok ? 'ok' : 'down', ...(state.degraded ? { warning: state.degraded } : {}) },
    operations: { loaded: registry.list().length, config_version: registry.version, codes: registry.list().map((o) => o.code) },
    plugins: s.sandbox.names(),
    request_id: ctx.state.requestId,
  };
}
