// `tollgate key rotate --prefix P [--grace-hours H]`: a new secret for the key shown with that prefix, the old
// one working for H hours (default 24, 0 ends it now). Prints the new secret alone on its last line, like
// `key create`. Other gateway processes pick the change up when their 1-second key cache entry runs out.
import type { Kysely } from 'kysely';
import { rotateApiKey } from '../accounts/api-keys.js';
import { writeAudit } from '../notify/audit-log.js';
import type { Database } from '../store/schema.js';
import { type ParsedArgs, requireFlag, UsageError } from './args.js';

type Print = (line: string) => void;
const MAX_GRACE_HOURS = 720;

export async function keyRotate(db: Kysely<Database>, args: ParsedArgs, print: Print): Promise<number> {
  const prefix = requireFlag(args, 'prefix');
  const raw = args.flags['grace-hours'];
  const graceHours = raw === undefined ? 24 : Number(raw);
  if (!Number.isInteger(graceHours) || graceHours < 0 || graceHours > MAX_GRACE_HOURS) {
    throw new UsageError(`--grace-hours must be an integer from 0 to ${MAX_GRACE_HOURS}`);
  }
  const keys = await db
    .selectFrom('api_keys')
    .select(['id', 'user_id'])
    .where('prefix', '=', prefix)
    .where('deleted_at', 'is', null)
    .execute();
  if (keys.length === 0) throw new UsageError(`no key with prefix ${prefix}`);
  if (keys.length > 1) throw new UsageError(`${keys.length} keys have prefix ${prefix}; rotate them in the console`);
  const { id, user_id: userId } = keys[0];
  const rotated = await rotateApiKey(db, Number(userId), Number(id), graceHours * 3600_000);
  if (!rotated) throw new UsageError(`no key with prefix ${prefix}`);
  await writeAudit(db, {
    actorId: null,
    actorRole: 'system',
    action: 'key.rotate',
    targetType: 'api_key',
    targetId: Number(id),
    subjectUserId: Number(userId),
    detail: { prefix: rotated.key.prefix, grace_hours: graceHours, via: 'cli' },
  });
  const until =
    rotated.key.prev_expires_at === null ? 'now' : new Date(Number(rotated.key.prev_expires_at)).toISOString();
  print(`rotated key ${Number(id)} (${prefix} -> ${rotated.key.prefix}); the old secret works until ${until}`);
  print(rotated.secret);
  return 0;
}
