// The operator a test gateway alerts: an active admin (who gets the mails) and an operator webhook endpoint for
// `events` (user_id null), as the canary and upstream tests need them.
import { createUser } from '../../core/accounts/users.js';
import { type TestApp, testPasswordHash } from './create-test-app.js';

export async function addOperator(h: TestApp, email: string, events: string[]): Promise<void> {
  const db = h.services.store.db;
  await createUser(db, email, 'password123', 'admin', await testPasswordHash());
  await db
    .insertInto('webhook_endpoints')
    .values({
      user_id: null,
      url: 'https://hooks.example.com/tollgate',
      kind: 'standard',
      secret: 'whsec_dGVzdHNlY3JldHRlc3RzZWNyZXR0ZXN0c2VjcmV0',
      bot_secret: null,
      events: JSON.stringify(events),
      status: 'active',
      created_at: Date.now(),
    })
    .execute();
}
