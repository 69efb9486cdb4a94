// What both floor servers (floor-server.ts on SQLite, pg-floor-server.ts on PostgreSQL) answer: the gateway's
// envelope and headers, nothing computed that the answer does not need.
import type { ServerResponse } from 'node:http';
import { EDGE_HEADERS } from '../core/http/api-edge.js';

export interface Call {
  res: ServerResponse;
  requestId: string;
  startedNs: bigint;
  phone: string;
  userId: number;
  keyId: number;
  ip: string;
}

export function answer(call: Call, status: number, body: string): void {
  const ms = Number(process.hrtime.bigint() - call.startedNs) / 1e6;
  call.res.writeHead(status, [
    ...EDGE_HEADERS,
    'X-Request-Id',
    call.requestId,
    'X-RateLimit-Limit',
    '1000000',
    'X-RateLimit-Remaining',
    '999999',
    'X-RateLimit-Reset',
    '1',
    'Server-Timing',
    `total;dur=${ms.toFixed(2)}`,
    'Cache-Control',
    'no-store',
    'Content-Type',
    'application/json; charset=utf-8',
    'Content-Length',
    String(Buffer.byteLength(body)),
  ]);
  call.res.end(body);
}

export const failure = (call: Call, code: string): string =>
  `{"success":false,"error":{"code":"${code}"},"deducted":0,"request_id":"${call.requestId}"}`;
