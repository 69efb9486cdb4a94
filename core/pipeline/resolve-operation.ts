// Stage: which operation is called — a `routes:` alias (GET /api/video/:id) or /api/{code} — and may this key call it.
import { deny } from '../http/errors.js';
import type { Stage } from './call.js';

export const resolveOperation: Stage = async (call) => {
  const alias = call.registry.matchAlias(call.method, call.path);
  if (alias) {
    call.operation = alias.operation;
    call.pathParams = alias.params;
  } else {
    const m = /^\/api\/([^/]+)\/?$/.exec(call.path);
    const code = m ? decodeURIComponent(m[1]) : '';
    const op = call.registry.get(code);
    if (!op) return deny('UNKNOWN_OPERATION', `There is no operation "${code.slice(0, 64)}". The list is at GET /console/api/operations.`);
    call.operation = op;
  }
  const allowed = call.identity?.allowedCodes;
  if (allowed && allowed.length > 0 && !allowed.includes(call.operation.code)) {
    return deny('OPERATION_NOT_ALLOWED', `This API key may not call "${call.operation.code}".`);
  }
  return undefined;
};
