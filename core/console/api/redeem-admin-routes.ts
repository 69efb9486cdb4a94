// /console/api/admin/redeem-codes: make batches of single-use codes for a plan or package, list batches,
// export a batch as CSV (to print or hand to a reseller).
import type Router from '@koa/router';
import { batchCodes, createRedeemBatch, listBatches, RedeemError } from '../../billing/redeem.js';
import { ApiError } from '../../http/errors.js';
import type { Services } from '../../services.js';
import { audit } from './audit.js';
import { requireAdmin, userOf } from './auth.js';
import { csvHeader, csvLocaleOf, localClock, UTF8_BOM } from './csv-locale.js';
import { bodyOf, idParam, invalid, parseIsoDate, queryInt, reqEnum, reqInt, reqString } from './input.js';
import { csv, iso } from './present.js';

const MAX_BATCH = 1000;

export function redeemAdminRoutes(router: Router, s: Services): void {
  const db = s.store.db;
  const admin = requireAdmin(s);

  router.post('/console/api/admin/redeem-codes', admin, async (ctx) => {
    const b = bodyOf(ctx, ['kind', 'id', 'count', 'expires_at']);
    const kind = reqEnum(b, 'kind', ['plan', 'package'] as const);
    const id = reqString(b, 'id', 100);
    const count = reqInt(b, 'count', 1, MAX_BATCH);
    let expiresAt: number | null = null;
    if (b.expires_at !== undefined && b.expires_at !== null) {
      expiresAt = parseIsoDate(b.expires_at, 'expires_at');
      if (expiresAt <= Date.now()) throw invalid(`'expires_at' must be in the future.`);
    }
    try {
      const { batchId, codes } = await createRedeemBatch(db, s.registry.current, {
        kind,
        itemId: id,
        count,
        expiresAt,
        createdBy: userOf(ctx).id,
      });
      await audit(ctx, s, {
        action: 'redeem_codes.create',
        targetType: 'redeem_batch',
        targetId: batchId,
        detail: { kind, id, count, expires_at: iso(expiresAt) },
      });
      ctx.status = 201;
      ctx.body = { batch_id: batchId, kind, id, count, expires_at: iso(expiresAt), codes };
    } catch (err) {
      if (err instanceof RedeemError) throw new ApiError('RESOURCE_NOT_FOUND', err.message);
      throw err;
    }
  });

  router.get('/console/api/admin/redeem-codes', admin, async (ctx) => {
    const rows = await listBatches(db, queryInt(ctx, 'limit', 1, 500, 100));
    ctx.body = {
      batches: rows.map((r) => ({
        batch_id: Number(r.id),
        kind: r.kind,
        id: r.item_id,
        count: Number(r.count),
        redeemed: Number(r.redeemed),
        created_at: iso(r.created_at),
        expires_at: iso(r.expires_at),
      })),
    };
  });

  router.get('/console/api/admin/redeem-codes/:batch.csv', admin, async (ctx) => {
    const batchId = idParam(ctx.params.batch, 'redeem-code batch');
    const loc = csvLocaleOf(ctx);
    const rows = await batchCodes(db, batchId);
    if (rows.length === 0) throw new ApiError('RESOURCE_NOT_FOUND', `There is no redeem-code batch ${batchId}.`);
    ctx.type = 'text/csv; charset=utf-8';
    ctx.set('Content-Disposition', `attachment; filename="redeem-codes-${batchId}.csv"`);
    // A batch is small (at most 1,000 codes), so it is one string; BOM, labels and zone as in csv-locale.ts.
    const time = localClock(loc.tz);
    ctx.body =
      UTF8_BOM +
      csv(
        csvHeader(['code', 'kind', 'item_id', 'created_at', 'expires_at', 'redeemed_by', 'redeemed_at'], loc),
        rows.map((r) => [
          r.code,
          r.kind,
          r.item_id,
          time(r.created_at),
          time(r.expires_at),
          r.redeemed_by === null ? null : Number(r.redeemed_by),
          time(r.redeemed_at),
        ]),
      );
  });
}
