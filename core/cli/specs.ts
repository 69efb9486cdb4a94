// Every CLI command with its options: the one list the parser, `--help` and the usage text read. A flag not
// listed here is a usage error (exit 2). Exit codes: 0 done, 1 the command ran and found a problem (a failed
// check, a reconcile mismatch, an error), 2 the command line was wrong and nothing was changed.
import { type CommandSpec, closest, type ParsedArgs, parseCommandArgs, UsageError } from './args.js';

const email = { type: 'string', value: 'E', help: 'the account email' } as const;

export const COMMANDS: CommandSpec[] = [
  {
    words: ['serve'],
    summary: 'Run the gateway (the default command).',
    options: { port: { type: 'string', value: 'N', help: 'listen port (default PORT or 8080)' } },
  },
  { words: ['migrate'], summary: 'Apply the database migrations and exit.', options: {} },
  {
    words: ['user', 'add'],
    summary: 'Create a user (or an admin with --admin).',
    options: {
      email,
      password: { type: 'string', value: 'P', help: 'at least 8 characters' },
      admin: { type: 'boolean', help: 'create an admin' },
    },
  },
  {
    words: ['user', 'passwd'],
    summary:
      "Set a user's password; without --password a generated one is printed once. Signs out every console session.",
    options: {
      email,
      password: { type: 'string', value: 'P', help: 'the new password (leave out to generate one)' },
      'reset-2fa': { type: 'boolean', help: 'also turn two-factor authentication off' },
    },
  },
  {
    words: ['credit'],
    summary: 'Add (or with a negative amount take) TOKEN to a balance, as a ledger entry.',
    options: {
      email,
      amount: { type: 'string', value: 'T', help: 'TOKEN, at most 6 decimals, e.g. 12.5 or -3' },
      reason: { type: 'string', value: 'R', help: 'ledger note' },
    },
  },
  {
    words: ['key', 'create'],
    summary: 'Create an API key; the secret alone on the last line.',
    options: { email, name: { type: 'string', value: 'N', help: 'key name (default cli)' } },
  },
  {
    words: ['key', 'revoke'],
    summary: 'Disable the keys with this prefix.',
    options: { prefix: { type: 'string', value: 'P', help: 'the key prefix shown in the console' } },
  },
  {
    words: ['key', 'rotate'],
    summary: 'New secret for a key (on the last line); the old one keeps working for the grace hours.',
    options: {
      prefix: { type: 'string', value: 'P', help: 'the key prefix' },
      'grace-hours': { type: 'string', value: 'H', help: '0-720, default 24' },
    },
  },
  {
    words: ['reconcile'],
    summary: 'Check that every balance equals its ledger sum; exit 1 on a mismatch.',
    options: {},
  },
  {
    words: ['payments', 'sync'],
    summary: 'Query pending orders at their payment providers now.',
    options: { order: { type: 'string', value: 'ID', help: 'only this order' } },
  },
  {
    words: ['phone-data', 'check'],
    summary: 'Validate a phone.dat for the phone operation.',
    options: {},
    positionals: ['file'],
  },
  {
    words: ['config', 'check'],
    summary:
      'Load operations.yaml (or the given file) and the environment without starting anything; exit 1 naming every bad field and variable.',
    options: {},
    positionals: ['[file]'],
  },
  {
    words: ['backup'],
    summary: 'Copy the SQLite database to a file while the gateway keeps serving (online backup).',
    options: {},
    positionals: ['file'],
    details: [
      'On PostgreSQL this prints the pg_dump command to use instead (docs/operators.md, "Backup and restore").',
    ],
  },
  {
    words: ['restore'],
    summary: 'Replace the SQLite database with a backup, migrate it and reconcile it. Stop the gateway first.',
    options: { force: { type: 'boolean', help: 'replace a database that already holds data' } },
    positionals: ['file'],
    details: [
      'The file must be a Tollgate database. The replaced database is kept next to it as tollgate.db.before-restore-<time>.',
    ],
  },
  {
    words: ['canary', 'run'],
    summary:
      'Run the canaries now (all, one operation, or operation/platform) and print each verdict; exit 1 if any fails.',
    options: {},
    positionals: ['[code]'],
    details: [
      'Calls go through the whole gateway on the canary system account (free, marked canary in the call log); the status and alerts update as with scheduled runs.',
    ],
  },
  {
    words: ['doctor'],
    summary:
      'Check Node, native modules, database and migrations, Redis, plugins and the data dir; one line each, exit 1 if any fails.',
    options: {},
  },
];

export function usage(): string {
  const lines = COMMANDS.map(
    (c) =>
      `  ${[...c.words, ...(c.positionals ?? []).map((p) => (p.startsWith('[') ? p : `<${p}>`))].join(' ').padEnd(24)} ${c.summary}`,
  );
  return [
    'usage: tollgate <command> [options]   (tollgate <command> --help for its options)',
    '',
    ...lines,
    '',
    'exit codes: 0 done, 1 failed or found a problem, 2 wrong command line (nothing changed)',
  ].join('\n');
}

/** The command the words at the start of argv name, and the rest of argv. */
export function findCommand(argv: string[]): { spec: CommandSpec; rest: string[] } {
  const leading = argv.slice(0, 2).filter((_, i) => argv.slice(0, i + 1).every((a) => !a.startsWith('-')));
  // `tollgate` alone, or `tollgate --port 9000`, serves as it always has.
  if (leading.length === 0) return { spec: COMMANDS[0], rest: argv };
  for (const n of [2, 1]) {
    const spec = COMMANDS.find((c) => c.words.length === n && c.words.every((w, i) => w === leading[i]));
    if (spec) return { spec, rest: argv.slice(n) };
  }
  const typed = leading.join(' ');
  const names = COMMANDS.map((c) => c.words.join(' '));
  const guess = closest(typed, names) ?? closest(leading[0], names);
  throw new UsageError(`unknown command: ${typed}${guess ? `; did you mean ${guess}?` : ''}`);
}

/** A whole command line, strictly: `['user', 'add', '--email', 'E']` -> { words, flags }. */
export function parseCommandLine(argv: string[]): ParsedArgs {
  const { spec, rest } = findCommand(argv);
  return parseCommandArgs(spec, rest);
}
