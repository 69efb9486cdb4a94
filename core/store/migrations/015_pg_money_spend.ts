// PostgreSQL only: tollgate_money learns the one-step charge ("s": the guarded debit with its ledger and call-log
// rows, no hold row), which an offline plugin's call sends instead of a hold and its capture. 014 and this both
// (re)create the current function (money-function.ts): a database that stopped at 014 gets the new one here.
export { up } from './014_pg_money_batch.js';
