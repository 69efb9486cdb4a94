// GET /api/health (no key): status, version, uptime, which dependency is down, operations loaded.
// 503 when the database cannot serve (down, hung past its deadline, or unable to write: disk full, I/O error);
// "degraded" (still 200) when Redis is down or stalled and limits fell back per process. The body names the
// failing dependency and how it fails, never the driver's error text (addresses, paths): that goes to the log.
// Version, plugin names and operation codes stay: operators and monitors need them, and /openapi.json publishes
// the catalogue anyway.
import type { Context } from 'koa';
import type { Services } from '../services.js';

export async function health(ctx: Context, s: Services): Promise<void> {
  const database = await s.store.status();
  const state = await s.state.health();
  const registry = s.registry.current;
  const ok = database === 'ok';
  if (!ok) s.logger.warn('health: database not ok', { database });
  ctx.status = ok ? 200 : 503;
  ctx.set('Cache-Control', 'no-store');
  if (!ok) ctx.set('Retry-After', '5');
  const down = [...(ok ? [] : ['database']), ...(state.ok ? [] : ['redis'])];
  ctx.body = {
    status: !ok ? 'down' : state.degraded ? 'degraded' : 'ok',
    version: s.version,
    uptime_s: Math.round((Date.now() - s.startedAt) / 1000),
    ...(down.length ? { down } : {}),
    database: { status: ok ? 'ok' : 'down', dialect: s.store.dialect, ...(ok ? {} : { reason: database }) },
    state: {
      backend: state.backend,
      status: state.ok ? 'ok' : 'down',
      ...(state.degraded ? { reason: state.degraded } : {}),
    },
    operations: {
      loaded: registry.list().length,
      config_version: registry.version,
      codes: registry.list().map((o) => o.code),
    },
    plugins: s.sandbox.names(),
    request_id: ctx.state.requestId,
  };
}
