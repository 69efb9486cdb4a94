// PostgreSQL only: tollgate_money writes the call-log rows of a batch's kept jobs in one statement at its end, instead
// of one statement per job (a third of the function's time at 16 jobs a batch). 014 to 016 and this all (re)create
// the current function (money-function.ts).
export { up } from './014_pg_money_batch.js';
