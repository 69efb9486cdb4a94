// PostgreSQL commits per billed call, counted, not timed: the bench's PostgreSQL rows run on a database of their own
// (created here, dropped afterwards), so pg_stat_database.xact_commit of that database counts the gateway's
// transactions alone, whatever else runs on the server. A backend reports its counts to the statistics at the
// latest when it exits, so each row is read after its processes stopped; the charged calls are the ledger's charge
// rows. The count includes everything the gateway commits while serving (warm-up, start-up, the call-log flushes,
// the hold sweeper, the key and plan reads every second), so it is an upper bound on the commits of the calls
// themselves; when a row runs slowly those per-second transactions are most of it. The group commit's own share is
// counted exactly as the calls of its function (track_functions, set for this database only).
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export interface BenchPg {
  /** The URL of the bench's own database. */
  url: string;
  /** Committed transactions in that database so far, once every backend that served it has reported. */
  commits(): Promise<number>;
  /** Calls of the group commit's function so far (each one statement, one commit). */
  groupCommits(): Promise<number>;
  /** Those calls and their total time in ms, as the backends have reported them so far (at most once a second each). */
  groupCommitStats(): Promise<{ calls: number; ms: number }>;
  /** Charge rows in the ledger of `schema`. */
  charges(schema: string): Promise<number>;
  drop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function query<T>(url: string, text: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, params)).rows as T[];
  } finally {
    await client.end();
  }
}

export async function createBenchPg(serverUrl: string): Promise<BenchPg> {
  const name = `tollgate_bench_${randomBytes(4).toString('hex')}`;
  await query(serverUrl, `create database ${name}`);
  await query(serverUrl, `alter database ${name} set track_functions = 'pl'`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const read = async (): Promise<number> =>
    Number(
      (
        await query<{ n: string }>(serverUrl, 'select xact_commit as n from pg_stat_database where datname = $1', [
          name,
        ])
      )[0]?.n ?? 0,
    );
  const groupCommitStats = async (): Promise<{ calls: number; ms: number }> => {
    const rows = await query<{ calls: string; ms: number }>(
      url.toString(),
      "select coalesce(sum(calls), 0) as calls, coalesce(sum(total_time), 0) as ms from pg_stat_user_functions where funcname = 'tollgate_money'",
    );
    return { calls: Number(rows[0].calls), ms: Number(rows[0].ms) };
  };
  return {
    url: url.toString(),
    async commits() {
      // Exited backends have reported; wait until the figure stands still (each flush lands within a moment).
      let last = await read();
      for (;;) {
        await sleep(300);
        const now = await read();
        if (now === last) return now;
        last = now;
      }
    },
    groupCommits: async () => (await groupCommitStats()).calls,
    groupCommitStats,
    async charges(schema) {
      const rows = await query<{ n: string }>(
        url.toString(),
        `select count(*) as n from "${schema}".ledger where kind = 'charge'`,
      );
      return Number(rows[0].n);
    },
    drop: async () => {
      await query(serverUrl, `drop database if exists ${name} with (force)`);
    },
  };
}
