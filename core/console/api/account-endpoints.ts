// Admin account tools (a user's password and 2FA, the mail outbox and test mail) as data for the OpenAPI
// document; spread into CONSOLE_ENDPOINTS (console-endpoints.ts).
import { type ConsoleEndpoint, NEW_PASSWORD } from './endpoint-schemas.js';

type Schema = Record<string, unknown>;
/** A string the handler reads with reqString: not blank. */
const str = { type: 'string', minLength: 1, pattern: '\\S' };
/** The same, at most `maxLength` characters (the handler's limit). */
const text = (maxLength: number) => ({ ...str, maxLength });
/** A new password: the one schema of sign-up, reset and change (letters and digits, 8-200 characters). */
const password = NEW_PASSWORD;
const obj = (properties: Record<string, Schema>, required: string[] = []): Schema => ({
  type: 'object',
  additionalProperties: false,
  properties,
  ...(required.length ? { required } : {}),
});
export const ACCOUNT_ENDPOINTS: ConsoleEndpoint[] = [
  {
    id: 'adminResetPassword',
    method: 'POST',
    path: '/console/api/admin/users/:id/password',
    summary: "Set a user's password (omit it to generate one, shown once); every session of the user ends",
    auth: 'admin',
    body: obj({ password }),
  },
  {
    id: 'adminDisable2fa',
    method: 'POST',
    path: '/console/api/admin/users/:id/2fa/disable',
    summary: "Turn off a user's 2FA (lost device)",
    auth: 'admin',
  },
  {
    id: 'adminMail',
    method: 'GET',
    path: '/console/api/admin/mail',
    summary: 'Mail outbox: every mail with its transport and outcome',
    auth: 'admin',
    query: [
      { name: 'limit', description: 'page size, 1-200', schema: { type: 'integer', minimum: 1, maximum: 200 } },
      {
        name: 'before',
        description: 'id cursor: next_before of the previous page',
        schema: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
      },
    ],
  },
  {
    id: 'adminMailTest',
    errors: ['MAIL_FAILED'],
    method: 'POST',
    path: '/console/api/admin/mail/test',
    summary: 'Send a test mail (502 MAIL_FAILED with the server answer when it fails)',
    auth: 'admin',
    body: obj({ to: { ...text(254), format: 'email' } }, ['to']),
  },
];
