// Stage: which operation is called — a `routes:` alias (GET /api/video/:id) or /api/{code} — and may this key call it.

import { DETAILS } from '../http/error-details.js';
import { deny } from '../http/errors.js';
import type { Operation } from '../registry/registry.js';
import type { ApiCall, Authenticated, Stage } from './call.js';

/** `routes:` aliases are declared for GET; POST on the same path is the same call with a body (long share text). */
function matchAlias(call: ApiCall) {
  return (
    call.registry.matchAlias(call.method, call.path) ??
    (call.method === 'POST' ? call.registry.matchAlias('GET', call.path) : undefined)
  );
}

export const resolveOperation: Stage<Authenticated, { operation: Operation }> = (call) => {
  try {
    const alias = matchAlias(call);
    if (alias) {
      call.operation = alias.operation;
      call.pathParams = alias.params;
    } else {
      const m = /^\/api\/([^/]+)\/?$/.exec(call.path);
      const code = m ? decodeURIComponent(m[1]) : '';
      const op = call.registry.get(code);
      if (!op) return deny('UNKNOWN_OPERATION', DETAILS.unknownOperation(code.slice(0, 64)));
      call.operation = op;
    }
  } catch (err) {
    // decodeURIComponent on "/api/%" or "/api/video/%E0%A4%A": the client's malformed path, not our fault.
    if (err instanceof URIError) return deny('INVALID_INPUT', DETAILS.badPercent());
    throw err;
  }
  const allowed = call.identity.allowedCodes;
  if (allowed && allowed.length > 0 && !allowed.includes(call.operation.code)) {
    return deny('OPERATION_NOT_ALLOWED', DETAILS.operationNotAllowed(call.operation.code));
  }
  // Not configured (operations.yaml `requires:`): refused here, before any price, hold or plugin. The catalogue's
  // message is the whole answer; which settings are missing is the operator's business (log, admin page).
  if (!call.operation.availability.available) return deny('OPERATION_UNAVAILABLE');
  return undefined;
};
