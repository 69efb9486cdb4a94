// PostgreSQL only: tollgate_money writes the call-log rows of a batch's kept jobs in one statement at its end,
// instead of one statement per job (about a fifth of the function's time per job). 014 to 016 and this all (re)create
// the current function (money-function.ts).
export { up } from './014_pg_money_batch.js';
