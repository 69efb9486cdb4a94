// Strict flag parsing for the CLI on node:util parseArgs. Each command declares its options (core/cli/specs.ts);
// anything else is a usage error (exit 2) with a did-you-mean, before the command touches the database: a
// misspelled `--admn` must not create a plain user.
import { parseArgs as parseNodeArgs } from 'node:util';

export interface ParsedArgs {
  /** Command words followed by the positionals, e.g. ['phone-data', 'check', 'phone.dat']. */
  words: string[];
  flags: Record<string, string | true>;
}

export interface OptionSpec {
  type: 'string' | 'boolean';
  /** Placeholder shown in help, e.g. 'E' for --email E. */
  value?: string;
  help: string;
}

export interface CommandSpec {
  /** The command words, e.g. ['user', 'add']. */
  words: string[];
  summary: string;
  options: Record<string, OptionSpec>;
  /** Names of the positionals after the command words; optional ones in [brackets]. */
  positionals?: string[];
  /** Lines printed under the usage by --help. */
  details?: string[];
}

export class UsageError extends Error {}

/** Levenshtein distance, small strings only. */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length];
}

/** The closest candidate within a third of its length (at least 2 edits), or a candidate it is a prefix of. */
export function closest(word: string, candidates: string[]): string | null {
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = editDistance(word, c);
    if (d < bestDistance && d <= Math.max(2, Math.floor(c.length / 3))) [best, bestDistance] = [c, d];
  }
  return best ?? candidates.find((c) => word.length >= 3 && c.startsWith(word)) ?? null;
}

/** `--amount -3`: a negative number is a value, not an option; node's strict mode would call it ambiguous. */
function joinNegativeValues(argv: string[], spec: CommandSpec): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i].startsWith('--') && !argv[i].includes('=') ? argv[i].slice(2) : null;
    if (name && spec.options[name]?.type === 'string' && /^-\d/.test(argv[i + 1] ?? ''))
      out.push(`${argv[i]}=${argv[++i]}`);
    else out.push(argv[i]);
  }
  return out;
}

function unknownOption(raw: string, spec: CommandSpec): UsageError {
  const name = raw.replace(/^-+/, '').split('=')[0];
  const known = [...Object.keys(spec.options), 'help'];
  const guess = closest(name, known);
  return new UsageError(
    `unknown option ${raw.startsWith('--') ? `--${name}` : raw}${guess ? `; did you mean --${guess}?` : ''}`,
  );
}

/** Parses argv after the command words against the command's options; --help sets flags.help. */
export function parseCommandArgs(spec: CommandSpec, argv: string[]): ParsedArgs {
  const options = Object.fromEntries([
    ...Object.entries(spec.options).map(([name, o]) => [name, { type: o.type }]),
    ['help', { type: 'boolean', short: 'h' }],
  ]);
  let parsed: ReturnType<typeof parseNodeArgs>;
  try {
    parsed = parseNodeArgs({
      args: joinNegativeValues(argv, spec),
      options: options as never,
      strict: true,
      allowPositionals: true,
    });
  } catch (err) {
    const e = err as Error & { code?: string };
    const optionName = /'(-[^' ]+)/.exec(e.message)?.[1] ?? '';
    if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw unknownOption(optionName, spec);
    if (e.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
      const name = optionName.replace(/^-+/, '');
      throw new UsageError(
        spec.options[name]?.type === 'boolean' ? `--${name} takes no value` : `--${name} needs a value`,
      );
    }
    throw new UsageError(e.message);
  }
  const flags: Record<string, string | true> = {};
  for (const [name, value] of Object.entries(parsed.values)) {
    if (typeof value === 'string') flags[name] = value;
    else if (value === true) flags[name] = true;
  }
  const max = spec.positionals?.length ?? 0;
  if (!flags.help && parsed.positionals.length > max) {
    throw new UsageError(`unexpected argument ${parsed.positionals[max]} for ${spec.words.join(' ')}`);
  }
  return { words: [...spec.words, ...parsed.positionals], flags };
}

export function requireFlag(args: ParsedArgs, name: string): string {
  const v = args.flags[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`missing --${name}`);
  return v;
}

/** `tollgate <words> --help`. */
export function commandHelp(spec: CommandSpec): string {
  const opts = Object.entries(spec.options).map(([name, o]) => [
    `--${name}${o.type === 'string' ? ` ${o.value ?? 'V'}` : ''}`,
    o.help,
  ]);
  const pos = (spec.positionals ?? []).map((p) => (p.startsWith('[') ? p : `<${p}>`));
  const width = Math.max(12, ...opts.map(([flag]) => flag.length));
  return [
    `usage: tollgate ${[...spec.words, ...pos].join(' ')}${opts.length ? ' [options]' : ''}`,
    '',
    spec.summary,
    ...(spec.details?.length ? ['', ...spec.details] : []),
    '',
    'options:',
    ...opts.map(([flag, help]) => `  ${flag.padEnd(width)}  ${help}`),
    `  ${'--help'.padEnd(width)}  this help`,
  ].join('\n');
}
