// Drives autocannon against a URL list, rotating API keys and phone numbers, and returns the figures.
import autocannon from 'autocannon';

export interface LoadResult {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  statuses: Record<string, number>;
  total: number;
}

/** `repeat`: cycle through this many numbers (cache hits once each was seen); 0: a new number every request. */
export async function drive(
  port: number,
  keys: string[],
  seconds: number,
  connections: number,
  repeat = 0,
): Promise<LoadResult> {
  let i = 0;
  const statuses: Record<string, number> = {};
  const instance = autocannon({
    url: `http://127.0.0.1:${port}`,
    connections,
    duration: seconds,
    requests: [
      {
        method: 'GET',
        setupRequest: (req: autocannon.Request) => {
          i++;
          // Varied numbers (mostly cache misses) from many keys, like real traffic.
          const n = repeat > 0 ? i % repeat : i;
          const phone = `13${String(800000000 + ((n * 7919) % 199999999)).padStart(9, '0')}`;
          return {
            ...req,
            path: `/api/phone?phone=${phone}`,
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
