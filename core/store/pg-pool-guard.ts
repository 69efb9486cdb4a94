// A pg client whose query hit the client-side read deadline (query_timeout) still has that query outstanding:
// every later query on it would queue behind a server that is not answering and time out too. So such a client
// is discarded when it is released (its socket destroyed), and the next call gets a fresh connection, which
// fails fast on DB_CONNECT_TIMEOUT_MS while the database is still gone and works as soon as it is back.
// Every query passes here, so this is also where a statement marked PREPARED (pg-prepared.ts) gets its name.

import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';
import { preparedName } from './pg-prepared.js';

const READ_TIMEOUT = 'Query read timeout';

export function guardPool(pool: pg.Pool): PostgresPool {
  const stuck = new WeakSet<pg.PoolClient>();
  const watched = new WeakSet<pg.PoolClient>();

  const watch = (client: pg.PoolClient): void => {
    if (watched.has(client)) return;
    watched.add(client);
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as { query: unknown }).query = (...args: unknown[]): unknown => {
      const name = typeof args[0] === 'string' ? preparedName(args[0]) : undefined;
      const result = name ? query({ name, text: args[0], values: args[1] }) : query(...args);
      if (result instanceof Promise) {
        result.catch((err: unknown) => {
          if ((err as Error | undefined)?.message === READ_TIMEOUT) stuck.add(client);
        });
      }
      return result;
    };
  };

  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      watch(client);
      // The pool sets a fresh release() on every checkout: wrap this one.
      const release = client.release.bind(client);
      client.release = (err?: Error | boolean): void => {
        if (!err && stuck.has(client)) {
          (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
          release(new Error('discarded after a query read timeout'));
          return;
        }
        release(err);
      };
      return client as unknown as PostgresPoolClient;
    },
    end: () => pool.end(),
  };
}
