// PostgreSQL only: tollgate_money finds a reused ledger reference with ON CONFLICT DO NOTHING before a job writes,
// instead of undoing the job in an exception block: a block per job was a subtransaction with an XID of its own, and
// a batch of more than 64 jobs made every other session's snapshot consult pg_subtrans while it ran. 014, 015 and
// this all (re)create the current function (money-function.ts).
export { up } from './014_pg_money_batch.js';
