// Starting and stopping the bench's servers: each a node process of its own, ready once it prints "listening".
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';

/** A port nobody listens on now: other benches may run on this machine at the same time. */
export function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const server = createServer().once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => ok(port));
    });
  });
}

/** `args` run by node with the TypeScript loader; resolves once the process says it is listening. */
export function startServer(
  args: string[],
  env: Record<string, string>,
  nodeArgs: string[] = [],
  /** Another checkout to run it from (a baseline tree beside this one); this one by default. */
  cwd?: string,
): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ['--no-node-snapshot', ...nodeArgs, '--import', './core/bin/load-ts.mjs', ...args],
    {
      cwd,
      // No canaries: they would reach the platforms from the bench machine and add load to what is measured.
      env: { ...process.env, CANARIES: 'off', ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  return new Promise((ok, fail) => {
    child.stdout!.on('data', (d: Buffer) => {
      if (/listening/.test(d.toString())) ok(child);
    });
    child.once('exit', (code) => fail(new Error(`${args.join(' ')} exited ${code}`)));
  });
}

/** SIGTERM, and the exit awaited (a profile is written as the process exits). */
export async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}
