// A user's own history: usage per China day and operation, the call log (a page of JSON, or a streamed CSV file)
// and the ledger. The call log is written in batches and flushed first, so what the user just did is in the answer.
import { Call, LedgerEntry } from './components.js';
import { csvLocaleQuery, csvText, timeBound } from './csv.js';
import { defineRoutes } from './define.js';
import {
  answer,
  idQuery,
  list,
  nextBefore,
  orNull,
  query,
  ref,
  rInt,
  rStr,
  rTime,
  rTokens,
  Type,
  textQuery,
  upTo,
} from './schema.js';

export const CALLS_CSV_MAX_ROWS = 100_000;
export const CALLS_CSV_MAX_SPAN_DAYS = 92;

const STATUS_ERROR = "'status' must be success, error or an HTTP status such as 402.";
const keyId = idQuery('one API key (its id)');
const before = idQuery('id cursor: next_before of the previous page');

/** The call log's filters, shared by the JSON page and the CSV file. */
const callFilters = {
  code: textQuery('operation code'),
  key_id: keyId,
  status: Type.Optional(
    Type.String({
      pattern: '^(success|error|[1-5][0-9]{2})$',
      description: 'success, error or an HTTP status',
      'x-error': STATUS_ERROR,
    }),
  ),
  from: timeBound('ISO date/time or epoch ms (inclusive)'),
  to: timeBound('ISO date/time or epoch ms (exclusive)'),
};

/** Calls, successes and TOKEN charged over one group of calls. */
const tally = { calls: rInt, successes: rInt, charged: rTokens };

export const USAGE = defineRoutes({
  usage: {
    method: 'GET',
    path: '/console/api/usage',
    summary: 'Usage per day and per operation',
    auth: 'user',
    query: query({ days: upTo(366, '1-366, default 30'), key_id: keyId }),
    responses: {
      200: answer({
        days: rInt,
        from: rTime,
        by_day: list(answer({ day: rStr, ...tally })),
        by_operation: list(answer({ operation: orNull(rStr), ...tally })),
        rows: list(answer({ day: rStr, operation: orNull(rStr), ...tally })),
      }),
    },
  },
  calls: {
    method: 'GET',
    path: '/console/api/calls',
    summary: 'Call log',
    auth: 'user',
    query: query({ ...callFilters, limit: upTo(500, 'page size, 1-500'), before }),
    responses: { 200: answer({ calls: list(ref('Call', Call)), next_before: nextBefore }) },
  },
  callsCsv: {
    method: 'GET',
    path: '/console/api/calls.csv',
    summary:
      'Call log as CSV, streamed: at most 92 days (default: the last 92) and 100,000 rows per export, one export at a time, 3 in a burst then 2 per minute',
    auth: 'user',
    query: query({
      ...callFilters,
      from: timeBound(
        'ISO date/time or epoch ms (inclusive)',
        `; before \`to\` and at most ${CALLS_CSV_MAX_SPAN_DAYS} days before it (or before now)`,
      ),
      before,
      limit: upTo(CALLS_CSV_MAX_ROWS, 'rows, 1-100000 (default 100000)'),
      ...csvLocaleQuery,
    }),
    responses: { 200: csvText },
    produces: 'text/csv',
    errors: ['RATE_LIMITED', 'CONCURRENCY_LIMITED'],
  },
  ledger: {
    method: 'GET',
    path: '/console/api/ledger',
    summary: 'Ledger entries',
    auth: 'user',
    query: query({ limit: upTo(500, 'page size, 1-500'), before }),
    responses: { 200: answer({ entries: list(ref('LedgerEntry', LedgerEntry)), next_before: nextBefore }) },
  },
});
