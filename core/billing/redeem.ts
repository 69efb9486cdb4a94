// Redeem codes: an admin makes a batch for a plan or package; each code works once. Redemption is one
// transaction: a conditional UPDATE ... WHERE redeemed_by IS NULL claims the code (so of many simultaneous
// redemptions exactly one wins), then the ledger row / subscription with ref `redeem:<code>` follows.
import { randomBytes } from 'node:crypto';
import { type Kysely, type Selectable, sql } from 'kysely';
import type { Registry } from '../registry/registry.js';
import type { Database, RedeemCodesTable } from '../store/schema.js';
import { type Delivery, deliverItem, findItem, type ItemKind } from './grants.js';

/** No 0/O or 1/I: codes are read aloud and typed from paper. 32 symbols, so a byte & 31 is unbiased (80 bits). */
const SYMBOLS = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ';
const CODE_LENGTH = 16;

export type RedeemCodeRow = Selectable<RedeemCodesTable>;

export class RedeemError extends Error {
  constructor(
    readonly reason: 'unknown' | 'used' | 'expired' | 'unknown_item',
    message: string,
  ) {
    super(message);
  }
}

export function newRedeemCode(): string {
  const bytes = randomBytes(CODE_LENGTH);
  let raw = '';
  for (const b of bytes) raw += SYMBOLS[b & 31];
  return raw.match(/.{4}/g)!.join('-');
}

/** What users type -> stored form: case, spaces and dashes do not matter. Null when it cannot be a code. */
export function normaliseRedeemCode(input: string): string | null {
  const raw = input.toUpperCase().replace(/[\s-]/g, '');
  if (raw.length !== CODE_LENGTH || ![...raw].every((c) => SYMBOLS.includes(c))) return null;
  return raw.match(/.{4}/g)!.join('-');
}

export interface NewBatch {
  kind: ItemKind;
  itemId: string;
  count: number;
  expiresAt: number | null;
  createdBy: number;
}

export async function createRedeemBatch(
  db: Kysely<Database>,
  registry: Registry,
  b: NewBatch,
): Promise<{ batchId: number; codes: string[] }> {
  const item = findItem(registry, b.kind, b.itemId);
  if (!item) throw new RedeemError('unknown_item', `There is no ${b.kind} "${b.itemId.slice(0, 64)}".`);
  const now = Date.now();
  return db.transaction().execute(async (trx) => {
    const batch = await trx
      .insertInto('redeem_batches')
      .values({
        kind: b.kind,
        item_id: item.id,
        count: b.count,
        created_by: b.createdBy,
        created_at: now,
        expires_at: b.expiresAt,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const batchId = Number(batch.id);
    const codes = new Set<string>();
    while (codes.size < b.count) codes.add(newRedeemCode());
    const rows = [...codes].map((code) => ({
      code,
      batch_id: batchId,
      kind: b.kind,
      item_id: item.id,
      created_at: now,
      expires_at: b.expiresAt,
      redeemed_by: null,
      redeemed_at: null,
    }));
    // 8 columns per row: stay far below SQLite's bound-parameter limit.
    for (let i = 0; i < rows.length; i += 100)
      await trx
        .insertInto('redeem_codes')
        .values(rows.slice(i, i + 100))
        .execute();
    return { batchId, codes: [...codes] };
  });
}

export async function batchCodes(db: Kysely<Database>, batchId: number): Promise<RedeemCodeRow[]> {
  return db.selectFrom('redeem_codes').selectAll().where('batch_id', '=', batchId).orderBy('code').execute();
}

export async function listBatches(db: Kysely<Database>, limit: number) {
  return db
    .selectFrom('redeem_batches')
    .selectAll()
    .select(
      sql<number>`(select count(*) from redeem_codes where redeem_codes.batch_id = redeem_batches.id and redeemed_by is not null)`.as(
        'redeemed',
      ),
    )
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

export interface Redemption {
  code: string;
  kind: ItemKind;
  itemId: string;
  delivery: Delivery;
}

export async function redeemCode(
  db: Kysely<Database>,
  registry: Registry,
  userId: number,
  input: string,
  now = Date.now(),
): Promise<Redemption> {
  const code = normaliseRedeemCode(input);
  if (!code)
    throw new RedeemError(
      'unknown',
      'This is not a valid redeem code: codes are 16 letters and digits, e.g. ABCD-EFGH-JKLM-NPQR.',
    );
  return db.transaction().execute(async (trx) => {
    const claimed = await trx
      .updateTable('redeem_codes')
      .set({ redeemed_by: userId, redeemed_at: now })
      .where('code', '=', code)
      .where('redeemed_by', 'is', null)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
      .returning(['kind', 'item_id'])
      .executeTakeFirst();
    if (!claimed) {
      const row = await trx.selectFrom('redeem_codes').selectAll().where('code', '=', code).executeTakeFirst();
      if (!row) throw new RedeemError('unknown', 'This redeem code does not exist. Check it for typos.');
      if (row.redeemed_by !== null) throw new RedeemError('used', 'This redeem code has been used already.');
      throw new RedeemError(
        'expired',
        `This redeem code expired at ${new Date(Number(row.expires_at)).toISOString()}.`,
      );
    }
    const delivery = await deliverItem(
      trx,
      registry,
      userId,
      claimed.kind,
      claimed.item_id,
      `redeem:${code}`,
      'redeem',
    );
    return { code, kind: claimed.kind, itemId: claimed.item_id, delivery };
  });
}
