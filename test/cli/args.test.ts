// The strict command line: every flag a command takes is declared; anything else is a UsageError (exit 2) with
// a did-you-mean, raised before the command runs. In-process: the parser and the command table.
import t, { type Test } from 'tap';
import { closest, commandHelp, editDistance, parseCommandArgs, UsageError } from '../../core/cli/args.js';
import { COMMANDS, findCommand, usage } from '../../core/cli/specs.js';

function parse(argv: string[]) {
  const { spec, rest } = findCommand(argv);
  return parseCommandArgs(spec, rest);
}

function usageError(t: Test, argv: string[], message: string): void {
  let err: unknown = null;
  try {
    parse(argv);
  } catch (e) {
    err = e;
  }
  t.ok(err instanceof UsageError, `${argv.join(' ')}: a UsageError (exit 2)`);
  t.equal((err as Error | null)?.message, message, argv.join(' '));
}

t.test('edit distance and the nearest name', async (t) => {
  t.equal(editDistance('admn', 'admin'), 1);
  t.equal(editDistance('', 'abc'), 3);
  t.equal(editDistance('kitten', 'sitting'), 3);
  t.equal(closest('admn', ['email', 'password', 'admin', 'help']), 'admin');
  t.equal(closest('pasword', ['email', 'password', 'admin']), 'password');
  t.equal(closest('zzzzzz', ['email', 'password', 'admin']), null, 'nothing close: no guess');
  t.equal(closest('grace', ['prefix', 'grace-hours']), 'grace-hours', 'a prefix of a longer option');
});

t.test('known flags parse as before', async (t) => {
  t.same(parse(['user', 'add', '--email', 'a@b.c', '--password', 'secret123', '--admin']), {
    words: ['user', 'add'],
    flags: { email: 'a@b.c', password: 'secret123', admin: true },
  });
  t.same(
    parse(['user', 'add', '--email=a@b.c', '--password=x=y']).flags,
    { email: 'a@b.c', password: 'x=y' },
    '--name=value, = in the value',
  );
  t.same(
    parse(['credit', '--email', 'a@b.c', '--amount', '-2.25']).flags,
    { email: 'a@b.c', amount: '-2.25' },
    'a negative amount is a value',
  );
  t.same(parse(['phone-data', 'check', 'x.dat']).words, ['phone-data', 'check', 'x.dat']);
  t.same(parse(['config', 'check']).words, ['config', 'check']);
  t.same(parse(['backup', '/tmp/b.db']).words, ['backup', '/tmp/b.db']);
  t.same(parse(['restore', '/tmp/b.db', '--force']), { words: ['restore', '/tmp/b.db'], flags: { force: true } });
  t.same(parse([]), { words: ['serve'], flags: {} }, 'no command serves');
  t.same(parse(['--port', '9000']), { words: ['serve'], flags: { port: '9000' } }, 'flags alone serve, as before');
  t.same(parse(['key', 'rotate', '--help']).flags, { help: true });
});

t.test('unknown flags and commands are usage errors with a did-you-mean', async (t) => {
  usageError(
    t,
    ['user', 'add', '--email', 'x@y.z', '--password', 'secret123', '--admn'],
    'unknown option --admn; did you mean --admin?',
  );
  usageError(t, ['user', 'add', '--emial', 'x@y.z'], 'unknown option --emial; did you mean --email?');
  usageError(
    t,
    ['credit', '--email', 'x@y.z', '--amount', '1', '--reson', 'r'],
    'unknown option --reson; did you mean --reason?',
  );
  usageError(
    t,
    ['key', 'rotate', '--prefix', 'sk_x', '--grace', '1'],
    'unknown option --grace; did you mean --grace-hours?',
  );
  usageError(t, ['migrate', '--force'], 'unknown option --force');
  usageError(t, ['reconcile', '-x'], 'unknown option -x');
  usageError(t, ['usr', 'add'], 'unknown command: usr add; did you mean user add?');
  usageError(t, ['user'], 'unknown command: user; did you mean user add?');
  usageError(t, ['docter'], 'unknown command: docter; did you mean doctor?');
  usageError(t, ['frobnicate'], 'unknown command: frobnicate');
});

t.test('values: missing, ambiguous, given to a switch, extra positionals', async (t) => {
  usageError(t, ['user', 'add', '--email'], '--email needs a value');
  usageError(t, ['user', 'add', '--email', '--admin'], '--email needs a value');
  usageError(t, ['user', 'add', '--admin=yes'], '--admin takes no value');
  usageError(t, ['reconcile', 'now'], 'unexpected argument now for reconcile');
  usageError(t, ['backup', 'a.db', 'b.db'], 'unexpected argument b.db for backup');
});

t.test('every command has a --help naming each of its flags', async (t) => {
  for (const spec of COMMANDS) {
    const help = commandHelp(spec);
    t.match(help, new RegExp(`^usage: tollgate ${spec.words.join(' ')}`), spec.words.join(' '));
    for (const name of Object.keys(spec.options)) t.match(help, `--${name}`, `${spec.words.join(' ')} --${name}`);
    t.match(usage(), spec.words.join(' '));
  }
  t.equal(
    commandHelp(COMMANDS.find((c) => c.words.join(' ') === 'user add')!),
    [
      'usage: tollgate user add [options]',
      '',
      'Create a user (or an admin with --admin).',
      '',
      'options:',
      '  --email E     the account email',
      '  --password P  at least 8 characters',
      '  --admin       create an admin',
      '  --help        this help',
    ].join('\n'),
  );
  t.match(usage(), 'exit codes: 0 done, 1 failed or found a problem, 2 wrong command line (nothing changed)');
});
