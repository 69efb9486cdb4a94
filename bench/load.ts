// Drives autocannon against a URL list, rotating API keys and phone numbers, and returns the figures.
import autocannon from 'autocannon';

export interface LoadResult {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  statuses: Record<string, number>;
  total: number;
}

/**
 * Requests sent by every drive() of this process so far: a "new number each call" row must never meet a number an
 * earlier slice or row already put in the gateway's cache (each drive() restarting at 0 made most calls of the
 * billed and quota rows cache hits after their first one-second slice).
 */
let sent = 0;

/** `repeat`: cycle through this many numbers (cache hits once each was seen); 0: a new number every request.
 *  `code`: the operation asked, with `phone` as its input. `rate`: requests per second in all, 0 as fast as the
 *  connections are answered. */
export async function drive(
  port: number,
  keys: string[],
  seconds: number,
  connections: number,
  repeat = 0,
  code = 'phone',
  rate = 0,
): Promise<LoadResult> {
  let i = 0;
  const statuses: Record<string, number> = {};
  const instance = autocannon({
    url: `http://127.0.0.1:${port}`,
    connections,
    duration: seconds,
    ...(rate > 0 ? { overallRate: rate } : {}),
    requests: [
      {
        method: 'GET',
        setupRequest: (req: autocannon.Request) => {
          i++;
          sent++;
          // A number never asked before (a cache miss), or one of `repeat` numbers; from many keys, like real traffic.
          const n = repeat > 0 ? i % repeat : sent;
          const phone = `13${String(800000000 + ((n * 7919) % 199999999)).padStart(9, '0')}`;
          return {
            ...req,
            path: `/api/${code}?phone=${phone}`,
            headers: { ...req.headers, 'x-api-key': keys[i % keys.length] },
          };
        },
      },
    ],
  });
  instance.on('response', (_client: unknown, statusCode: number) => {
    statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
  });
  const result = await instance;
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    statuses,
    total: Object.values(statuses).reduce((a, b) => a + b, 0),
  };
}
