// Reading and writing the canary tables (migration 013): one operation_status row per subject, written only by the
// process holding the canary lease, one canary_results row per probe or counted live success, pruned after the
// retention, and the lease itself (one row; whoever renews it before it runs out keeps it).
// A subject is (operation, platform): `platform` is any sub-key of an operation's status, so a status per upstream
// of a failover operation can be kept as more subjects of the same tables without a new one.
import { type Kysely, sql } from 'kysely';
import type { Database } from '../store/schema.js';
import type { HealthState, OperationStatusTable } from '../store/schema-health.js';
import type { Observation, SubjectState } from './status-machine.js';

export interface SubjectRow extends SubjectState {
  operation: string;
  platform: string;
}

const fromRow = (r: OperationStatusTable): SubjectRow => ({
  operation: r.operation,
  platform: r.platform,
  state: r.state,
  since: Number(r.since),
  lastSuccessAt: r.last_success_at === null ? null : Number(r.last_success_at),
  lastFailureAt: r.last_failure_at === null ? null : Number(r.last_failure_at),
  lastClass: r.last_class,
  lastField: r.last_field,
  lastDetail: r.last_detail,
  failures: Number(r.failures),
  successes: Number(r.successes),
  nextProbeAt: Number(r.next_probe_at),
});

export async function readStatuses(db: Kysely<Database>): Promise<SubjectRow[]> {
  const rows = await db.selectFrom('operation_status').selectAll().orderBy('operation').orderBy('platform').execute();
  return rows.map(fromRow);
}

export async function writeStatus(db: Kysely<Database>, row: SubjectRow, now: number): Promise<void> {
  const values = {
    state: row.state as HealthState,
    since: row.since,
    last_success_at: row.lastSuccessAt,
    last_failure_at: row.lastFailureAt,
    last_class: row.lastClass,
    last_field: row.lastField,
    last_detail: row.lastDetail,
    failures: row.failures,
    successes: row.successes,
    next_probe_at: row.nextProbeAt,
    updated_at: now,
  };
  await db
    .insertInto('operation_status')
    .values({ operation: row.operation, platform: row.platform, ...values })
    .onConflict((oc) => oc.columns(['operation', 'platform']).doUpdateSet(values))
    .execute();
}

export async function recordResult(
  db: Kysely<Database>,
  r: {
    operation: string;
    platform: string;
    source: 'canary' | 'live';
    durationMs: number | null;
    requestId: string | null;
  },
  o: Observation,
): Promise<void> {
  await db
    .insertInto('canary_results')
    .values({
      operation: r.operation,
      platform: r.platform,
      source: r.source,
      ok: o.ok ? 1 : 0,
      failure_class: o.class,
      field: o.field,
      detail: o.detail.slice(0, 500),
      duration_ms: r.durationMs,
      request_id: r.requestId,
      created_at: o.at,
    })
    .execute();
}

/** Results older than `before`, in batches so a large backlog never holds the write lock long. */
export async function pruneResults(db: Kysely<Database>, before: number): Promise<number> {
  let total = 0;
  for (;;) {
    const ids = db.selectFrom('canary_results').select('id').where('created_at', '<', before).limit(2000);
    const res = await db.deleteFrom('canary_results').where('id', 'in', ids).executeTakeFirst();
    const n = Number(res.numDeletedRows);
    total += n;
    if (n < 2000) return total;
  }
}

export interface HistoryRow {
  operation: string;
  platform: string;
  source: string;
  ok: boolean;
  failure_class: string | null;
  field: string | null;
  detail: string | null;
  duration_ms: number | null;
  request_id: string | null;
  created_at: number;
}

/** Newest first; for the admin history. */
export async function readHistory(
  db: Kysely<Database>,
  f: { operation?: string; platform?: string; since: number; limit: number },
): Promise<HistoryRow[]> {
  let q = db.selectFrom('canary_results').selectAll().where('created_at', '>=', f.since);
  if (f.operation) q = q.where('operation', '=', f.operation);
  if (f.platform !== undefined) q = q.where('platform', '=', f.platform);
  const rows = await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(f.limit).execute();
  return rows.map((r) => ({
    operation: r.operation,
    platform: r.platform,
    source: r.source,
    ok: Number(r.ok) === 1,
    failure_class: r.failure_class,
    field: r.field,
    detail: r.detail,
    duration_ms: r.duration_ms === null ? null : Number(r.duration_ms),
    request_id: r.request_id,
    created_at: Number(r.created_at),
  }));
}

export interface BucketRow {
  operation: string;
  platform: string;
  bucket: number;
  ok: number;
  total: number;
}

/** Results per subject and bucket of `bucketMs` since `since` (bucket = floor(time / bucketMs)). */
export async function readBuckets(db: Kysely<Database>, since: number, bucketMs: number): Promise<BucketRow[]> {
  const bucket = sql<number>`(created_at / ${sql.lit(bucketMs)})`;
  const rows = await db
    .selectFrom('canary_results')
    .select([
      'operation',
      'platform',
      sql<number>`cast(${bucket} as bigint)`.as('bucket'),
      (eb) => eb.fn.sum<number>('ok').as('ok'),
      (eb) => eb.fn.countAll<number>().as('total'),
    ])
    .where('created_at', '>=', since)
    .groupBy(['operation', 'platform', sql`cast(${bucket} as bigint)`])
    .execute();
  return rows.map((r) => ({
    operation: r.operation,
    platform: r.platform,
    bucket: Number(r.bucket),
    ok: Number(r.ok),
    total: Number(r.total),
  }));
}

/**
 * Take or renew the lease `name` for `owner` until `until`: true when this owner holds it afterwards. One statement,
 * so two processes racing for an expired lease cannot both win.
 */
export async function takeLease(
  db: Kysely<Database>,
  name: string,
  owner: string,
  now: number,
  until: number,
): Promise<boolean> {
  await sql`insert into leases (name, owner, until) values (${name}, ${owner}, ${until})
    on conflict (name) do update set owner = excluded.owner, until = excluded.until
    where leases.owner = excluded.owner or leases.until < ${now}`.execute(db);
  const row = await db.selectFrom('leases').select('owner').where('name', '=', name).executeTakeFirst();
  return row?.owner === owner;
}

export async function releaseLease(db: Kysely<Database>, name: string, owner: string): Promise<void> {
  await db.deleteFrom('leases').where('name', '=', name).where('owner', '=', owner).execute();
}
