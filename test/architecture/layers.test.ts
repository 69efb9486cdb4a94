// The shape of core/: folders are layers, and an import may only point to the same layer or one below it.
// The order is written once here (docs/architecture.md "Architecture" draws the same picture). Imports that still point
// up are listed by name as debt: a new one fails the test, and so does a listed one that was fixed (so the
// list only shrinks). No import circles, and no source file over 400 lines.

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import t from 'tap';
import { coreFiles, importCycles, importEdges, lineCount } from './import-graph.js';

const root = resolve(import.meta.dirname, '../..');

/** Bottom to top. */
const LAYERS: string[][] = [
  ['kernel'], // money, ids, canonical JSON, logging interface, clock-free helpers: imports nothing of core
  ['config'], // env and operations.yaml parsing
  ['store'], // Kysely database, dialects, migrations, group commit
  ['state'], // counters, slots, rate limits, cache tier
  ['sandbox'], // isolated-vm pool and the plugin host
  ['registry'], // operations bound to plugins, validators
  ['accounts'], // users, passwords, keys
  ['billing'], // ledger, holds, plans (returns quotes), orders, payments
  ['notify'], // mail alerts and webhooks fired after billing events
  ['services'], // core/services.ts: the interface of the services bag the upper layers receive
  ['http'], // edge helpers: error catalogue, envelope, request id, client IP, health, /metrics
  ['pipeline'], // the stages of an /api call (order in pipeline/index.ts)
  ['mcp'], // POST /mcp: operations as MCP tools, each call run through the pipeline
  ['health'], // canaries through the pipeline, operation status, breakage alerts
  ['console'], // console API and web console
  ['bin', 'cli', 'build', '(root)'], // composition: compose, app, main, cluster, the CLI and its launcher
];

/** Upward imports not yet removed, each as `from -> to`: none left; keep it that way. */
const KNOWN_UPWARD = new Set<string>([]);

/** Import circles not yet untied (console files edited in parallel at the time); the list only shrinks. */
const KNOWN_CYCLES: string[][] = [];

const rank = new Map<string, number>();
LAYERS.forEach((names, i) => {
  for (const n of names) rank.set(n, i);
});

function layerOf(file: string): string {
  const parts = file.split('/');
  if (file === 'core/services.ts') return 'services';
  return parts.length === 2 ? '(root)' : parts[1];
}

const files = coreFiles(root);
const edges = importEdges(root, files).filter((e) => e.to.startsWith('core/'));

t.test('every folder of core/ has a layer', async (t) => {
  const unknown = [...new Set(files.map(layerOf))].filter((l) => !rank.has(l));
  t.same(unknown, [], 'add new folders to LAYERS (and to the picture in docs/architecture.md)');
});

t.test('imports point down (or stay in their layer), except the listed debt', async (t) => {
  const upward = edges
    .filter((e) => (rank.get(layerOf(e.to)) ?? -1) > (rank.get(layerOf(e.from)) ?? Infinity))
    .map((e) => `${e.from} -> ${e.to}`);
  t.same(
    upward.filter((u) => !KNOWN_UPWARD.has(u)),
    [],
    'new upward imports',
  );
  t.same(
    [...KNOWN_UPWARD].filter((u) => !upward.includes(u)),
    [],
    'fixed: remove these from KNOWN_UPWARD',
  );
});

t.test('the kernel imports nothing of core outside itself', async (t) => {
  t.same(
    edges.filter((e) => layerOf(e.from) === 'kernel' && layerOf(e.to) !== 'kernel'),
    [],
  );
});

t.test('no import circles, except the listed ones', async (t) => {
  const cycles = importCycles(edges).map((c) => c.join(' '));
  const known = KNOWN_CYCLES.map((c) => c.join(' '));
  t.same(
    cycles.filter((c) => !known.includes(c)),
    [],
    'new import circles',
  );
  t.same(
    known.filter((c) => !cycles.includes(c)),
    [],
    'untied: remove these from KNOWN_CYCLES',
  );
});

t.test('every relative import names an existing file', async (t) => {
  t.same(
    edges.filter((e) => !existsSync(join(root, e.to))).map((e) => `${e.from} -> ${e.to}`),
    [],
  );
});

t.test('no source file over 400 lines', async (t) => {
  // The console's translation dictionaries are data (one line per text), not code.
  const long = coreFiles(root, true).filter((f) => !f.startsWith('web/src/i18n/') && lineCount(root, f) > 400);
  t.same(long, []);
});

t.test('the architecture picture in docs/architecture.md draws the folders of core/ in the layer order', async (t) => {
  const readme = readFileSync(join(root, 'docs/architecture.md'), 'utf8');
  const picture = /## Architecture[\s\S]*?```\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
  const drawn = [...picture.matchAll(/([a-z-]+)\/(?=\s)/g)].map((m) => m[1]);
  const folders = readdirSync(join(root, 'core')).filter((n) => statSync(join(root, 'core', n)).isDirectory());
  t.same([...drawn].sort(), [...folders].sort(), 'every folder drawn once, and only folders that exist');
  // Top to bottom in the picture is LAYERS read backwards.
  const order = drawn.map((d) => rank.get(d)!);
  t.same(
    order,
    [...order].sort((a, b) => b - a),
    'drawn from the top layer down',
  );
  t.match(picture, /services\.ts/);
});
