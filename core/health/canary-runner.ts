// Runs the canaries: every sample of every operation with a `canary:` block, through the real call path (the
// system account's key, the whole pipeline, the sandbox; core/health/system-account.ts), free and marked canary in
// the call log. Passive first: a sample is probed only when it is due (core/health/status-machine.ts) and no live
// success of its operation and platform came in meanwhile; a live success counts instead of a probe. In a cluster
// one process holds the canary lease and runs them; the timer is unref'd and only `serve` starts it. An operation
// with configured upstreams also has a status per upstream, which moves it in and out of rotation, and one whose
// plugin fails over between providers of its own a status per provider (core/health/upstream-canary.ts).
import { randomBytes } from 'node:crypto';
import { newRequestId } from '../accounts/secrets.js';
import type { CanaryConfig, CanarySample } from '../config/canary-config.js';
import { newCall } from '../pipeline/begin-call.js';
import { runCall } from '../pipeline/index.js';
import type { Operation } from '../registry/registry.js';
import type { Services } from '../services.js';
import { upstreamHealthOf } from '../state/upstream-health.js';
import { sendBreakageAlerts } from './breakage-alerts.js';
import { type Envelope, judge, type Verdict } from './canary-check.js';
import { initialState, type Observation, observe } from './status-machine.js';
import {
  pruneResults,
  readStatuses,
  recordResult,
  releaseLease,
  type SubjectRow,
  takeLease,
  writeStatus,
} from './status-store.js';
import { ensureSystemKey, type SystemKey } from './system-account.js';
import { followStatus, type Probe, probesOf } from './upstream-canary.js';

export interface ProbeReport {
  operation: string;
  platform: string;
  verdict: Verdict;
  requestId: string;
  durationMs: number;
  state: string;
}

export interface CanaryRunner {
  /** One pass if this process holds the lease: what is due is probed (or credited to live traffic). */
  tick(): Promise<ProbeReport[]>;
  /** Probe every sample (of one operation, or one platform of it) now, whatever is due; results count as usual. */
  runNow(code?: string, platform?: string): Promise<ProbeReport[]>;
  /** Tick every `everyMs` (unref'd); returns a stop function that also gives the lease up. */
  start(everyMs?: number): () => Promise<void>;
  readonly owner: string;
}

export interface RunnerOptions {
  clock?: () => number;
  leaseMs?: number;
  retentionDays?: number;
}

const LEASE = 'canary';
const PRUNE_EVERY_MS = 3_600_000;

export function createCanaryRunner(s: Services, o: RunnerOptions = {}): CanaryRunner {
  const clock = o.clock ?? Date.now;
  const leaseMs = o.leaseMs ?? 60_000;
  const retentionMs = (o.retentionDays ?? 35) * 86_400_000;
  const owner = `canary_${process.pid}_${randomBytes(4).toString('hex')}`;
  let key: Promise<SystemKey> | null = null;
  let prunedAt = 0;
  let running: Promise<ProbeReport[]> | null = null;
  const db = s.store.db;

  const systemKey = (): Promise<SystemKey> => {
    key ??= ensureSystemKey(db).catch((err: unknown) => {
      key = null;
      throw err;
    });
    return key;
  };

  /** `platform` filters on the status key: a platform, an upstream's (`upstream:<id>`) or a provider's. */
  const subjects = (code?: string, platform?: string): Probe[] =>
    s.registry.current
      .list()
      .filter((op) => op.canary && op.availability.available && (code === undefined || op.code === code))
      .flatMap((op) => probesOf(op, op.canary!))
      .filter((x) => platform === undefined || x.subject === platform);

  async function probe(
    op: Operation,
    cfg: CanaryConfig,
    sample: CanarySample,
    pin: Pick<Probe, 'upstream' | 'provider'>,
  ) {
    const { secret } = await systemKey();
    const started = process.hrtime.bigint();
    const call = newCall(
      {
        requestId: newRequestId(),
        startedNs: started,
        method: 'POST',
        path: `/api/${op.code}`,
        ip: '127.0.0.1',
        headers: { 'x-api-key': secret, 'accept-language': 'en' },
        query: {},
        body: sample.input,
        bodyKind: 'json',
      },
      s,
    );
    call.canary = true;
    call.pinUpstream = pin.upstream;
    call.pinProvider = pin.provider;
    const answer = await runCall(call, s);
    const durationMs = Math.round(Number(process.hrtime.bigint() - started) / 1e4) / 100;
    let env: Envelope;
    try {
      env = JSON.parse(answer.body) as Envelope;
    } catch {
      env = { success: false, error: { code: `HTTP_${answer.status}`, message: 'not a JSON envelope' } };
    }
    // Classify by the plugin's whole detail, not by the caller-facing text (which drops a detail it cannot give
    // wholly in the caller's language), and by the operator's reason beside it (a network errno).
    const detail = answer.denial?.message;
    if (env.error && detail !== undefined) env.error.message = typeof detail === 'string' ? detail : detail.en;
    const reason = answer.denial?.detail;
    if (env.error && reason) env.error.message = `${env.error.message} (${reason})`;
    const verdict = await judge(answer.status, env, sample, op.response, cfg.schema);
    return { verdict, requestId: call.requestId, durationMs };
  }

  async function apply(
    row: SubjectRow,
    cfg: CanaryConfig,
    obs: Observation,
    meta: { source: 'canary' | 'live'; requestId: string | null; durationMs: number | null },
  ): Promise<SubjectRow> {
    const { next, change } = observe(row, obs, cfg);
    const updated: SubjectRow = { ...next, operation: row.operation, platform: row.platform };
    await recordResult(db, { operation: row.operation, platform: row.platform, ...meta }, obs);
    await writeStatus(db, updated, clock());
    await followStatus(upstreamHealthOf(s.state), updated, obs.ok, change, clock());
    if (change) {
      await sendBreakageAlerts(
        {
          db,
          webhooks: s.webhooks,
          sendMail: (m) => s.mailer.send(m),
          logger: s.logger,
          publicUrl: s.settings.accounts.publicUrl,
        },
        { operation: row.operation, platform: row.platform, change, state: updated },
      ).catch((err: Error) => s.logger.error('breakage alert failed', { reason: err.message }));
    }
    return updated;
  }

  async function pass(code: string | undefined, platform: string | undefined, force: boolean): Promise<ProbeReport[]> {
    const now = clock();
    const known = new Map((await readStatuses(db)).map((r) => [`${r.operation}\u0000${r.platform}`, r]));
    const reports: ProbeReport[] = [];
    for (const { op, cfg, sample, subject, upstream, provider } of subjects(code, platform)) {
      const row: SubjectRow = known.get(`${op.code}\u0000${subject}`) ?? {
        ...initialState(now),
        operation: op.code,
        platform: subject,
      };
      if (!force && now < row.nextProbeAt) continue;
      if (!force) {
        const live = await s.liveSuccess.last(op.code, subject);
        if (live !== null && live > now - cfg.intervalMs && live > (row.lastSuccessAt ?? 0)) {
          const obs = { ok: true, class: null, field: null, detail: 'live traffic succeeded', at: live };
          await apply(row, cfg, obs, { source: 'live', requestId: null, durationMs: null });
          continue;
        }
      }
      const { verdict, requestId, durationMs } = await probe(op, cfg, sample, { upstream, provider });
      const obs: Observation = {
        ok: verdict.ok,
        class: verdict.class,
        field: verdict.field,
        detail: verdict.detail,
        at: clock(),
      };
      const updated = await apply(row, cfg, obs, { source: 'canary', requestId, durationMs });
      reports.push({
        operation: op.code,
        platform: subject,
        verdict,
        requestId,
        durationMs,
        state: updated.state,
      });
    }
    if (now - prunedAt >= PRUNE_EVERY_MS) {
      prunedAt = now;
      const pruned = await pruneResults(db, now - retentionMs);
      if (pruned > 0) s.logger.info('canary results pruned', { rows: pruned });
    }
    return reports;
  }

  const once = (run: () => Promise<ProbeReport[]>): Promise<ProbeReport[]> => {
    // One pass at a time per process: a slow upstream must not stack passes.
    running ??= run().finally(() => (running = null));
    return running;
  };

  return {
    owner,
    async tick() {
      const now = clock();
      if (!(await takeLease(db, LEASE, owner, now, now + leaseMs))) return [];
      return once(() => pass(undefined, undefined, false));
    },
    runNow: (code, platform) => once(() => pass(code, platform, true)),
    start(everyMs = 15_000) {
      const timer = setInterval(() => {
        this.tick().catch((err: Error) => s.logger.error('canary pass failed', { reason: err.message }));
      }, everyMs);
      timer.unref();
      return async () => {
        clearInterval(timer);
        await running?.catch(() => undefined);
        await releaseLease(db, LEASE, owner).catch(() => undefined);
      };
    },
  };
}
