#!/usr/bin/env node
// `npx tollgate <command>`: re-runs core/main.ts with the TypeScript loader (load-ts.mjs)
// and --no-node-snapshot (isolated-vm needs it).
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const child = spawn(
  process.execPath,
  [
    '--no-node-snapshot',
    '--import',
    pathToFileURL(join(root, 'core', 'bin', 'load-ts.mjs')).href,
    join(root, 'core', 'main.ts'),
    ...process.argv.slice(2),
  ],
  {
    stdio: 'inherit',
    cwd: process.cwd(),
  },
);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
