// `tollgate config check [file]`: loads the environment and operations.yaml (or the given file) the way `serve`
// would, without opening the database, Redis or a sandbox, and names every bad variable and the exact bad field
// (`operations[2].price_per_call`, with its line). Exit 0 when `serve` would accept both, 1 when not.

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { UNFINISHED_MARK } from '../billing/payments/manual.js';
import { readSettings, type Settings } from '../config/env.js';
import type { OperationsConfig } from '../config/operations-config.js';
import { ConfigError, parseOperationsConfig } from '../config/operations-loader.js';
import { buildRegistry } from '../registry/registry.js';
import { loadManifest } from '../sandbox/manifest.js';
import { discover } from '../sandbox/sandbox.js';
import type { ParsedArgs } from './args.js';
import type { Print } from './commands.js';

/** Every readSettings error: each names its variable first, so dropping that variable finds the next one. */
export function envProblems(env: NodeJS.ProcessEnv): { settings: Settings | null; problems: string[] } {
  const copy = { ...env };
  const problems: string[] = [];
  for (let round = 0; round < 50; round++) {
    try {
      const settings = readSettings(copy);
      if (copy.DATABASE_URL && !/^postgres(ql)?:\/\//.test(copy.DATABASE_URL))
        problems.push('DATABASE_URL must start with postgres:// or postgresql:// (or be unset for SQLite)');
      if (copy.REDIS_URL && !/^rediss?:\/\//.test(copy.REDIS_URL))
        problems.push('REDIS_URL must start with redis:// or rediss://');
      return { settings: problems.length ? null : settings, problems };
    } catch (err) {
      const message = (err as Error).message;
      problems.push(message);
      const name = /^[A-Z][A-Z0-9_]+/.exec(message)?.[0];
      if (!name || copy[name] === undefined) return { settings: null, problems };
      delete copy[name];
    }
  }
  return { settings: null, problems };
}

/** "/operations/2/price_per_call" -> "operations[2].price_per_call". */
export function pointerToPath(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((seg, i) =>
      /^\d+$/.test(seg) ? `[${seg}]` : `${i === 0 ? '' : '.'}${seg.replace(/~1/g, '/').replace(/~0/g, '~')}`,
    )
    .join('');
}

/** Rewrites the loader's "at /operations/2/x" into "at operations[2].x (line 14)". */
function withPaths(message: string, text: string): string {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines });
  return message.replace(/ at (\/[^\s:]*)/g, (_, pointer: string) => {
    const segs = pointer
      .split('/')
      .slice(1)
      .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
    // The deepest node that exists: a missing field is reported at its parent's line.
    let line: number | null = null;
    for (let n = segs.length; n >= 0 && line === null; n--) {
      const node = doc.getIn(segs.slice(0, n), true) as { range?: [number, number, number] } | undefined;
      if (node?.range) line = lines.linePos(node.range[0]).line;
    }
    return ` at ${pointerToPath(pointer) || '(top level)'}${line ? ` (line ${line})` : ''}`;
  });
}

export async function checkOperations(
  file: string,
  env: NodeJS.ProcessEnv,
  pluginDirs: string[],
): Promise<{ config: OperationsConfig | null; problems: string[] }> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    return { config: null, problems: [`${file}: cannot read (${(err as { code?: string }).code ?? 'error'})`] };
  }
  const problems: string[] = [];
  let config: OperationsConfig;
  try {
    config = parseOperationsConfig(file, text, env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    // Schema errors come one per line; a YAML syntax error is one error whose message spans lines.
    const messages = err.message.includes(': not valid YAML: ') ? [err.message.trimEnd()] : err.message.split('\n');
    return { config: null, problems: messages.map((m) => withPaths(m, text)) };
  }
  let plugins: Map<string, string>;
  try {
    plugins = await discover(pluginDirs);
  } catch (err) {
    return { config, problems: [`PLUGIN_DIRS: ${(err as Error).message}`] };
  }
  for (const [name, dir] of plugins) {
    if (!config.operations.some((op) => op.plugin === name)) continue;
    await loadManifest(dir).catch((err: Error) => problems.push(`plugin ${name}: ${err.message}`));
  }
  try {
    buildRegistry(config, (name) => plugins.has(name), 1);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    problems.push(withPaths(err.message, text));
  }
  return { config, problems };
}

export async function configCheck(
  args: ParsedArgs,
  print: Print,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const { settings, problems: envBad } = envProblems(env);
  for (const p of envBad) print(`env: ${p}`);
  const file = args.words[2]
    ? resolve(args.words[2])
    : (settings?.operationsFile ?? resolve(env.OPERATIONS_FILE || './operations.yaml'));
  const pluginDirs = settings?.pluginDirs ?? [resolve('plugins')];
  const { config, problems } = await checkOperations(file, env, pluginDirs);
  for (const p of problems) print(p);
  if (config && problems.length === 0) {
    const enabled = config.operations.filter((o) => o.enabled);
    print(
      `${file}: ${config.operations.length} operations (${enabled.length} enabled), ${config.plans.length} plans, ${config.packages.length} packages`,
    );
    for (const op of enabled) {
      if (op.availability.available) continue;
      print(
        `note: operation "${op.code}" is unavailable until one of these is set: ${op.availability.missing.map((g) => g.join(' + ')).join(' or ')}`,
      );
    }
    // Buyers never read the template (core/billing/payments/manual.ts); the operator is told here instead.
    const manual = config.manualInstructions;
    if (manual && (['zh', 'en'] as const).some((l) => manual[l].includes(UNFINISHED_MARK[l])))
      print(
        `note: manual_payment.instructions still carries its unfinished mark: buyers are told only to pay as agreed, quoting the order number, until you write whom to pay and where`,
      );
  }
  const bad = envBad.length + problems.length;
  print(bad === 0 ? 'config ok' : `config has ${bad} problem(s)`);
  return bad === 0 ? 0 : 1;
}
