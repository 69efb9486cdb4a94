// Serves the built web console: /console/ (index.html), /console/assets/* (content-hashed, cached for a year)
// and every other /console/* path as index.html, so the single-page app's own URLs survive a reload.
// /console/api/* is left to the router. When dist is missing (a fresh clone without npm install, or a dev
// deleted it) the bundle is built on the first request instead of answering 404.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import type Koa from 'koa';
import type { Context, Next } from 'koa';
import type { Logger } from '../kernel/logger.js';

/** No inline script or style anywhere in the console, so nothing but our own files is allowed. */
export const CONSOLE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'";

const ASSET_CACHE = 'public, max-age=31536000, immutable';
const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
};
const ASSET_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export interface ServeConsoleOptions {
  distDir?: string;
  logger?: Pick<Logger, 'info' | 'error'>;
  /** Builds the bundle into distDir when it is missing; the composition root passes core/build/console-bundle.ts
   *  (build/ is the top layer, so this file may not import it). Without it a missing bundle answers 503. */
  build?: (distDir: string) => Promise<unknown>;
}

function setConsoleHeaders(ctx: Context): void {
  ctx.set('Content-Security-Policy', CONSOLE_CSP);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Referrer-Policy', 'no-referrer');
}

async function noBuild(): Promise<unknown> {
  throw new Error('no build step configured');
}

export function consoleWebMiddleware(opts: ServeConsoleOptions = {}): Koa.Middleware {
  const distDir = opts.distDir ?? join(import.meta.dirname, '../../web/dist');
  const build = opts.build ?? noBuild;
  let building: Promise<void> | undefined;

  // One build at a time per server; a failed build is retried by the next request (the error may be fixed).
  const ensureBuilt = async (): Promise<void> => {
    if (existsSync(join(distDir, 'index.html'))) return;
    building ??= (async () => {
      opts.logger?.info('console bundle missing, building it', { dist: distDir });
      await build(distDir);
    })().finally(() => {
      building = undefined;
    });
    await building;
  };

  return async (ctx: Context, next: Next): Promise<void> => {
    const path = ctx.path;
    if (path !== '/console' && !path.startsWith('/console/')) return next();
    if (path === '/console/api' || path.startsWith('/console/api/')) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    setConsoleHeaders(ctx);
    if (path === '/console') {
      ctx.status = 301;
      ctx.redirect('/console/');
      return;
    }
    try {
      await ensureBuilt();
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      opts.logger?.error('console bundle build failed', { reason });
      ctx.status = 503;
      ctx.type = 'text/plain; charset=utf-8';
      ctx.set('Cache-Control', 'no-store');
      ctx.body = `The web console is not built and building it failed: ${reason}\nRun "npm run postinstall" and reload.\n`;
      return;
    }
    if (path.startsWith('/console/assets/')) {
      const name = path.slice('/console/assets/'.length);
      const type = TYPES[extname(name)];
      const file = join(distDir, 'assets', name);
      if (!ASSET_NAME.test(name) || name.includes('..') || !type || !existsSync(file)) {
        ctx.status = 404;
        ctx.type = 'text/plain; charset=utf-8';
        ctx.body = 'No such console asset.\n';
        return;
      }
      ctx.set('Cache-Control', ASSET_CACHE);
      ctx.type = type;
      ctx.body = await readFile(file);
      return;
    }
    // index.html names the current hashed assets, so it must be revalidated on every load.
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = await readFile(join(distDir, 'index.html'));
  };
}

export function serveConsoleWeb(app: Koa, opts: ServeConsoleOptions = {}): void {
  app.use(consoleWebMiddleware(opts));
}
