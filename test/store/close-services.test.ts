// Shutdown closes every part even when one of them fails: a step that threw used to leave the rest open (the
// database pool, Redis, the isolates), and those kept the process alive until it was killed.
import t from 'tap';
import { closeServices } from '../../core/compose.js';
import { createTestApp } from '../helpers/create-test-app.js';

t.test('a failing step is logged and thrown after every later step ran', async (t) => {
  const h = await createTestApp();
  await h.client.close();
  const s = h.services;
  s.callLog.close = () => Promise.reject(new Error('call log could not be flushed'));
  await t.rejects(closeServices(s), { message: 'call log could not be flushed' });
  t.match(
    h.logs.filter((l) => l.message === 'closing failed'),
    [{ step: 'call log', reason: /call log could not be flushed/ }],
  );
  // The steps after it ran: the sandbox refuses work and the database is closed.
  await t.rejects(
    s.sandbox.run({ plugin: 'echo', operation: 'echo', input: {}, options: {}, requestId: 'r', timeoutMs: 100 }),
    { message: 'sandbox is closed' },
  );
  await t.rejects(s.store.db.selectFrom('users').select('id').execute());
});
