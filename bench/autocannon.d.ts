// The slice of autocannon's API the benchmark uses (the package ships no types).
declare module 'autocannon' {
  namespace autocannon {
    interface Request {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string;
    }
    interface Options {
      url: string;
      connections?: number;
      duration?: number;
      /** Stop after this many requests (instead of after `duration`). */
      amount?: number;
      requests?: Array<{ method?: string; setupRequest?: (req: Request) => Request }>;
    }
    interface Result {
      requests: { average: number };
      latency: { p50: number; p99: number };
    }
    interface Instance extends PromiseLike<Result> {
      on(event: 'response', listener: (client: unknown, statusCode: number) => void): void;
    }
  }
  function autocannon(options: autocannon.Options): autocannon.Instance;
  export default autocannon;
}
