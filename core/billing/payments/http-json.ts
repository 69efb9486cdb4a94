// A small outbound HTTP helper for provider APIs: a deadline, a size cap, and no guessing. Anything that is
// not a complete answer (timeout, HTTP error, HTML) is an error, which the callers turn into `unknown`.
import { request as httpReq } from 'node:http';
import { request as httpsReq } from 'node:https';

const MAX_BYTES = 256 * 1024;

export interface HttpAnswer {
  status: number;
  /** Lower-case header names. */
  headers: Record<string, string>;
  text: string;
}

export interface HttpOptions {
  method?: 'GET' | 'POST';
  body?: string;
  headers?: Record<string, string>;
  timeoutMs?: number;
}

/** node:http rather than fetch: one code path with a hard deadline and size cap, and no redirects followed. */
export function httpRequest(url: string, opts: HttpOptions = {}): Promise<HttpAnswer> {
  const target = new URL(url);
  const send = target.protocol === 'https:' ? httpsReq : httpReq;
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.body !== undefined) headers['content-length'] = String(Buffer.byteLength(opts.body));
  return new Promise((resolve, reject) => {
    const req = send(target, { method: opts.method ?? 'GET', headers, timeout: opts.timeoutMs ?? 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_BYTES) req.destroy(new Error(`answer larger than ${MAX_BYTES} bytes`));
        else chunks.push(c);
      });
      res.on('end', () => {
        const flat: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers))
          if (v !== undefined) flat[k] = Array.isArray(v) ? v.join(', ') : v;
        resolve({ status: res.statusCode ?? 0, headers: flat, text: Buffer.concat(chunks).toString('utf8') });
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

/** The JSON object of an answer, or an error naming what came instead. */
export function jsonOf(a: HttpAnswer): Record<string, unknown> {
  try {
    const v = JSON.parse(a.text) as unknown;
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    /* fall through */
  }
  throw new Error(`HTTP ${a.status}: not a JSON object (${a.text.slice(0, 60).replace(/\s+/g, ' ')})`);
}

/** "10.00" (yuan) for 1000 fen. */
export function yuan(fen: number): string {
  return (fen / 100).toFixed(2);
}

/** 1000 for "10.00" or "10"; null for anything that is not a plain amount with at most 2 decimals. */
export function fenOf(text: unknown): number | null {
  if (typeof text !== 'string' && typeof text !== 'number') return null;
  const m = /^(\d{1,12})(?:\.(\d{1,2}))?$/.exec(String(text).trim());
  return m ? Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0')) : null;
}
