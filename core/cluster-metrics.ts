// /metrics under `npm run cluster`. Each worker counts its own calls; a scrape must see the sum, not whichever
// worker the connection landed on (counters would jump back and forth). prom-client's AggregatorRegistry does the
// summing in the primary: it asks every worker over the cluster IPC channel for its registries and adds them up,
// each metric by its own aggregator (counters and histograms sum, uptime takes the max).
// - METRICS_LISTEN is served by the primary (workers do not open it: node:cluster would share that port too and
//   hand each scrape to one worker).
// - The main port's /metrics (METRICS_TOKEN) reaches a worker, which asks the primary for the sum over IPC.
import cluster from 'node:cluster';
import { AggregatorRegistry } from 'prom-client';
import { createMetrics, type Metrics, type MetricsSource } from './kernel/metrics.js';

const ASK = 'tollgate:metrics-ask';
const ANSWER = 'tollgate:metrics-answer';
/** prom-client gives up on a silent worker after 5 s; the worker waits a little longer for the primary's answer. */
const ASK_TIMEOUT_MS = 6000;

interface Answer {
  type: typeof ANSWER;
  id: number;
  text?: string;
  error?: string;
}

const isAnswer = (m: unknown): m is Answer => typeof m === 'object' && m !== null && (m as Answer).type === ANSWER;

/** In a cluster worker: its metrics, handed to the primary on request; text() is the cluster's sum. Else undefined. */
export function clusterWorkerMetrics(): Metrics | undefined {
  if (!cluster.isWorker) return undefined;
  const local = createMetrics();
  AggregatorRegistry.setRegistries([...local.registries]);
  new AggregatorRegistry(); // installs the worker's answer to the primary's requests
  let seq = 0;
  const waiting = new Map<number, (a: Answer) => void>();
  process.on('message', (m: unknown) => {
    if (isAnswer(m)) waiting.get(m.id)?.(m);
  });
  const askPrimary = (): Promise<string> =>
    new Promise((resolve, reject) => {
      const id = ++seq;
      const timer = setTimeout(
        () => settle({ type: ANSWER, id, error: 'the cluster primary did not answer' }),
        ASK_TIMEOUT_MS,
      );
      function settle(a: Answer): void {
        clearTimeout(timer);
        waiting.delete(id);
        if (a.text !== undefined) resolve(a.text);
        else reject(new Error(a.error ?? 'no metrics'));
      }
      waiting.set(id, settle);
      process.send!({ type: ASK, id });
    });
  return { ...local, text: askPrimary };
}

/** In the cluster primary: the sum of every worker's metrics, also sent to a worker that asks for it. */
export function clusterPrimaryMetrics(): MetricsSource {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, m: { type?: string; id?: number }) => {
    if (m?.type !== ASK) return;
    aggregator.clusterMetrics().then(
      (text) => worker.isConnected() && worker.send({ type: ANSWER, id: m.id, text }),
      (err: Error) => worker.isConnected() && worker.send({ type: ANSWER, id: m.id, error: err.message }),
    );
  });
  return { text: () => aggregator.clusterMetrics(), contentType: aggregator.contentType };
}
