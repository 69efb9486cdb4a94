// The Dockerfile passes the hadolint-style rules of dockerfile-lint.ts, and each rule fails on the mistake it is
// for (so a rule that can never fire would show here). .dockerignore keeps state and build output out of the
// context without hiding anything the builder copies.

import { existsSync, readFileSync } from 'node:fs';
import t from 'tap';
import { lintDockerfile, parseDockerfile } from './dockerfile-lint.js';

const dockerfile = readFileSync('Dockerfile', 'utf8');
const rules = (text: string) => lintDockerfile(text).map((f) => f.rule);

t.test('the Dockerfile passes every rule', async (t) => {
  t.same(lintDockerfile(dockerfile), []);
});

t.test('its shape: pinned base, builder with compilers, non-root runtime with a health check', async (t) => {
  const { args, stages } = parseDockerfile(dockerfile);
  t.match(args.NODE_IMAGE, /^node:22\.\d+\.\d+-bookworm-slim$/, 'Node 22, pinned to a patch release');
  t.same(
    stages.map((s) => s.name),
    ['builder', 'runtime'],
  );
  t.equal(stages[0].image, stages[1].image, 'one base image: the native modules match the runtime ABI and glibc');
  const runtime = stages[1].instructions;
  t.equal(runtime.filter((i) => i.keyword === 'USER').at(-1)?.args, 'node');
  t.match(
    runtime.find((i) => i.keyword === 'HEALTHCHECK')?.args,
    /^--interval=\S+ --timeout=\S+ --start-period=\S+ --retries=\d+\s+CMD \[/,
  );
  t.same(JSON.parse(runtime.find((i) => i.keyword === 'CMD')!.args), [
    'node',
    '--no-node-snapshot',
    '--import',
    './core/bin/load-ts.mjs',
    'core/main.ts',
    'serve',
  ]);
  const builderRun = stages[0].instructions
    .filter((i) => i.keyword === 'RUN')
    .map((i) => i.args)
    .join('\n');
  t.match(builderRun, /apt-get install -y --no-install-recommends python3 make g\+\+/);
  t.match(builderRun, /npm ci --no-audit --no-fund/);
});

t.test('every rule fires on its mistake', async (t) => {
  const cases: Array<[string, (d: string) => string, string]> = [
    ['DL3006', (d) => d.replace('ARG NODE_IMAGE=node:22.20.0-bookworm-slim', 'ARG NODE_IMAGE=node'), 'untagged base'],
    ['DL3007', (d) => d.replace(/ARG NODE_IMAGE=\S+/, 'ARG NODE_IMAGE=node:latest'), 'latest'],
    ['TG002', (d) => d.replace(/ARG NODE_IMAGE=\S+/, 'ARG NODE_IMAGE=node:22-slim'), 'a moving major tag'],
    [
      'DL3014',
      (d) => d.replace('install -y --no-install-recommends', 'install --no-install-recommends'),
      'apt-get install without -y',
    ],
    ['DL3015', (d) => d.replace('install -y --no-install-recommends', 'install -y'), 'recommends'],
    ['DL3009', (d) => d.replace(/\s*&& rm -rf \/var\/lib\/apt\/lists\/\*/, ''), 'apt lists kept'],
    ['DL3003', (d) => d.replace('RUN npm ci', 'RUN cd /app && npm ci'), 'cd in RUN'],
    ['TG003', (d) => d.replace('RUN npm ci', 'RUN npm install'), 'npm install'],
    ['DL3020', (d) => d.replace('COPY core ./core', 'ADD core ./core'), 'ADD for a folder'],
    [
      'DL3025',
      (d) =>
        d.replace(/^CMD \[.*\]$/m, 'CMD node --no-node-snapshot --import ./core/bin/load-ts.mjs core/main.ts serve'),
      'shell-form CMD',
    ],
    ['DL3000', (d) => d.replace(/WORKDIR \/app(?![\s\S]*WORKDIR)/, 'WORKDIR app'), 'relative WORKDIR'],
    ['TG004', (d) => d.replace('USER node\n', ''), 'no USER'],
    ['DL3002', (d) => d.replace('USER node', 'USER root'), 'USER root'],
    ['TG005', (d) => d.replace(/HEALTHCHECK[\s\S]*?\n(?=STOPSIGNAL)/, ''), 'no HEALTHCHECK'],
    [
      'TG006',
      (d) => d.replace('COPY --from=builder --chown=root:root', 'COPY --from=builder'),
      'COPY --from without --chown',
    ],
    [
      'TG007',
      (d) =>
        d.replace(
          'RUN mkdir -p /data',
          'RUN apt-get update && apt-get install -y --no-install-recommends g++ && rm -rf /var/lib/apt/lists/* && mkdir -p /data',
        ),
      'compiler in runtime',
    ],
    ['TG008', (d) => d.replace('"--no-node-snapshot", ', ''), 'no --no-node-snapshot'],
    ['TG009', (d) => d.replace(/\s*&& npm prune --omit=dev --no-audit --no-fund/, ''), 'dev dependencies shipped'],
    [
      'TG001',
      (d) =>
        d
          .slice(d.indexOf('FROM ${NODE_IMAGE} AS runtime'))
          .replace('FROM ${NODE_IMAGE}', 'FROM node:22.20.0-bookworm-slim'),
      'single stage',
    ],
  ];
  for (const [rule, mutate, what] of cases) {
    const changed = mutate(dockerfile);
    t.not(changed, dockerfile, `${what}: the mutation applies`);
    t.ok(rules(changed).includes(rule), `${rule} fires on ${what} (got ${rules(changed).join(', ') || 'none'})`);
  }
});

t.test('.dockerignore: state and build output out, every builder COPY source in', async (t) => {
  const ignored = readFileSync('.dockerignore', 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  for (const p of ['.git', 'node_modules', 'data', 'test', '.env', 'web/dist*', 'plugins/*/assets/generated'])
    t.ok(ignored.includes(p), `${p} ignored`);
  const { stages } = parseDockerfile(dockerfile);
  const sources = stages[0].instructions
    .filter((i) => i.keyword === 'COPY' && !i.args.includes('--from='))
    .flatMap((i) =>
      i.args
        .split(/\s+/)
        .filter((a) => !a.startsWith('--'))
        .slice(0, -1),
    );
  t.same(sources.sort(), [
    'core',
    'operations.yaml',
    'package-lock.json',
    'package.json',
    'plugins',
    'tsconfig.json',
    'web',
  ]);
  for (const src of sources) {
    t.ok(existsSync(src), `${src} exists`);
    const hidden = ignored.filter((p) => !p.includes('*') && (p === src || src.startsWith(`${p}/`)));
    t.same(hidden, [], `${src} is not ignored`);
  }
});
