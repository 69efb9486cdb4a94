// The OpenAPI document is exact: a property-based run over the served /openapi.json (what Schemathesis does,
// built on fast-check). For every operation it draws valid requests from the document's own schemas and
// requests broken in one named way, sends them with the right credentials (an API key for /api, a user or an
// admin token for the console) and checks that
//   - the status is one the operation documents, never a 5xx;
//   - the body matches the documented schema for that status (JSON), or the documented media type (CSV);
//   - a broken request is 400 INVALID_INPUT (404 too for a broken path id), never 2xx;
//   - a valid request is never 400 unless the operation's description states the rule that refused it;
// and that OPTIONS on each path advertises exactly the methods the document lists, and that every link names a
// real operation and parameter and resolves in the answer it starts from. Seeded: a failure prints the seed and
// the request that broke the contract. CONTRACT_SEED=<n> replays a run; CONTRACT_BUDGET_MS sets the time the valid
// samples may take in all; CONTRACT_TIMES=1 prints each operation's time.

import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import t from 'tap';
import { admin, bearer, tokenFor } from '../console/support.js';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';
import type { TestResponse } from '../helpers/http.js';
import {
  bodySchema,
  harvest,
  invalidRequests,
  type Operation,
  operationsOf,
  type Pool,
  type Request,
  responseChecker,
  validRequests,
} from './document.js';
import type { Schema } from './schema-arbitrary.js';

const SEED = Number(process.env.CONTRACT_SEED ?? 20261127);
const VALID_RUNS = 15;
/** Each broken variant is tried this often (each variant is a different way to break the request). */
const INVALID_RUNS = 1;
/**
 * Valid samples of one operation stop being sent after this long (the run passes on): plugins that spin, allocate
 * or wait on purpose and scrypt password checks would otherwise take most of the run.
 */
const VALID_BUDGET_MS = 1200;
/**
 * All valid samples together stop after this long, shared out over the operations still to run, so a loaded
 * machine trims samples rather than time out. The broken requests (one per way to break each operation) all run.
 */
const TOTAL_VALID_BUDGET_MS = Number(process.env.CONTRACT_BUDGET_MS ?? 45_000);
let totalDeadline = 0;

let h: TestApp;
let doc: Schema;
let ops: Operation[];
let check: ReturnType<typeof responseChecker>;
let user: { userId: number; key: string };
let adminId: number;
const pool: Pool = new Map();
/** A request that got a 2xx from each operation with links, for the link walk (sent again there: fresh objects). */
const linkSources = new Map<string, Request>();

// A safety net for a machine shared by many runs; the budgets keep a normal run near a minute.
t.setTimeout(300_000);

t.before(async () => {
  h = await createTestApp();
  doc = (await h.client.get('/openapi.json')).body;
  ops = operationsOf(doc);
  check = responseChecker(doc);
  user = await h.user(1000);
  adminId = (await admin(h)).userId;
});
t.teardown(() => h.close());

const fitsAjv = new Ajv2020({ strict: false, validateFormats: false });
const fits = (s: Schema, v: unknown): boolean => fitsAjv.validate(s, v) as boolean;

async function credentials(o: Operation): Promise<Record<string, string>> {
  if (o.path.startsWith('/api/')) return { 'x-api-key': user.key };
  if (!o.op.security?.length) return {};
  return bearer(await tokenFor(h, o.path.includes('/admin/') ? adminId : user.userId));
}

/** Accounts a fuzzed admin call may have disabled come back, so the next operation starts from the same state. */
async function heal(): Promise<void> {
  await h.services.store.db
    .updateTable('users')
    .set({ status: 'active' })
    .where('id', 'in', [user.userId, adminId])
    .execute();
}

async function send(o: Operation, r: Request): Promise<TestResponse> {
  const qs = new URLSearchParams(r.query).toString();
  const headers = await credentials(o);
  return h.client.request(`${r.path}${qs ? `?${qs}` : ''}`, {
    method: o.method,
    headers,
    // Bodies go as JSON text, so a broken one (a bare string, null) is still JSON.
    ...(r.body !== undefined || o.op.requestBody
      ? {
          body: JSON.stringify(r.body === undefined ? {} : r.body),
          headers: { ...headers, 'content-type': 'application/json' },
        }
      : {}),
  });
}

/** What is wrong with an answer whatever the input, or null. */
function conformance(o: Operation, res: TestResponse): string | null {
  const documented = o.op.responses[String(res.status)] ?? o.op.responses.default;
  if (!documented) return `status ${res.status} is not documented (${res.text.slice(0, 200)})`;
  // The gateway's 5xx are documented outcomes of its test plugins (built to throw, loop or time out); the console
  // has no upstream, so a 5xx there is a bug.
  if (res.status >= 500 && !o.path.startsWith('/api/')) return `server error ${res.status}: ${res.text.slice(0, 200)}`;
  const content = documented.content as Record<string, Schema> | undefined;
  if (!content) return null;
  const type = (res.headers['content-type'] ?? '').split(';')[0].trim();
  const media = content[type];
  if (!media)
    return `${res.status} answered ${type || 'no content type'}, documented: ${Object.keys(content).join(', ')}`;
  if (type !== 'application/json' || !media.schema) return null;
  const wrong = check(media.schema, res.body);
  return wrong ? `${res.status} body off its schema: ${wrong} in ${res.text.slice(0, 300)}` : null;
}

/** Whether the operation's description states a rule (`field`: ...) for a field the 400's message names. */
function ruleStated(o: Operation, res: TestResponse): boolean {
  const message = String(res.body?.error?.message ?? '');
  const description = String(o.op.description ?? '');
  const fields = [
    ...((o.op.parameters ?? []) as Schema[]).map((p) => String(p.name)),
    ...Object.keys(bodySchema(o)?.properties ?? {}),
  ];
  return fields.some((f) => description.includes(`\`${f}\``) && new RegExp(`\\b${f}\\b`).test(message));
}

function describe(r: Request): string {
  return JSON.stringify({ path: r.path, query: r.query, body: r.body });
}

interface Tally {
  ops: number;
  valid: number;
  invalid: number;
  failures: string[];
}
const tally: Tally = { ops: 0, valid: 0, invalid: 0, failures: [] };

async function runProperty(
  label: string,
  arb: fc.Arbitrary<Request>,
  numRuns: number,
  predicate: (r: Request) => Promise<string | null>,
): Promise<void> {
  const details = await fc.check(
    fc.asyncProperty(arb, async (r) => {
      const wrong = await predicate(r);
      if (wrong) throw new Error(`${wrong}\n    request: ${describe(r)}`);
    }),
    { seed: SEED, numRuns, endOnFailure: true },
  );
  if (details.failed) {
    const cause =
      details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
    tally.failures.push(`${label} (seed ${details.seed}, path ${details.counterexamplePath}): ${cause}`);
  }
}

async function contractOf(o: Operation): Promise<void> {
  const label = `${o.method} ${o.path}`;
  const validReq = validRequests(o, pool, fits);
  const share = Math.max(0, totalDeadline - Date.now()) / Math.max(1, ops.length - tally.ops);
  const deadline = Date.now() + Math.min(VALID_BUDGET_MS, share);
  await runProperty(`${label} valid`, validReq, VALID_RUNS, async (r) => {
    if (Date.now() > deadline) return null;
    tally.valid++;
    const res = await send(o, r);
    const wrong = conformance(o, res);
    if (wrong) return wrong;
    // A 400 with another documented code (INVALID_TOKEN: a stale link) answers the state, not the input's shape.
    const shapeRefused = res.status === 400 && res.body?.error?.code === 'INVALID_INPUT';
    if ((shapeRefused && !ruleStated(o, res)) || res.status === 415)
      return `a valid request refused: ${res.status} ${res.text.slice(0, 300)}`;
    if (res.status < 300 && res.body !== undefined) {
      harvest(pool, res.body);
      if (Object.values(o.op.responses[String(res.status)]?.links ?? {}).length && !linkSources.has(o.id))
        linkSources.set(o.id, r);
    }
    return null;
  });
  for (const v of invalidRequests(o, validReq)) {
    await runProperty(`${label} ${v.why}`, v.arb, INVALID_RUNS, async (r) => {
      tally.invalid++;
      const res = await send(o, r);
      const wrong = conformance(o, res);
      if (wrong) return wrong;
      if (r.pathBroken && res.status === 404) return null;
      // A budget spent by the valid requests may refuse before the input is read: a refusal all the same.
      if (res.status === 429) return null;
      if (res.status !== 400 || res.body?.error?.code !== 'INVALID_INPUT')
        return `a broken request (${r.why}) answered ${res.status} ${res.text.slice(0, 200)}`;
      return null;
    });
  }
  await heal();
  tally.ops++;
}

t.test(
  'every operation answers as documented, refuses what the document refuses and takes what it allows',
  async (t) => {
    totalDeadline = Date.now() + TOTAL_VALID_BUDGET_MS;
    for (const o of ops) {
      const t0 = Date.now();
      await contractOf(o);
      if (process.env.CONTRACT_TIMES) console.error(`${Date.now() - t0} ms ${o.method} ${o.path}`);
    }
    t.comment(
      `contract: ${tally.ops} operations, ${tally.valid} valid and ${tally.invalid} broken requests, seed ${SEED}`,
    );
    t.same(tally.failures, [], `failures (replay with CONTRACT_SEED=${SEED})`);
    t.ok(tally.ops > 100, 'every operation was run');
  },
);

t.test('OPTIONS advertises exactly the documented methods of each path', async (t) => {
  const wrong: string[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Schema>)) {
    const documented = ['GET', 'PUT', 'POST', 'DELETE', 'PATCH'].filter((m) => item[m.toLowerCase()]);
    const res = await h.client.request(path.replace(/\{\w+\}/g, '1'), { method: 'OPTIONS' });
    const allowed = (res.headers.allow ?? '')
      .split(',')
      .map((m) => m.trim())
      .filter((m) => m && m !== 'HEAD' && m !== 'OPTIONS');
    if ([...allowed].sort().join() !== [...documented].sort().join())
      wrong.push(
        `${path}: Allow ${res.headers.allow ?? '(none)'} (${res.status}), documented ${documented.join(', ')}`,
      );
  }
  t.same(wrong, []);
});

/** A runtime expression's value in an answer: $response.body#/a/0/b. */
const EMPTY_LIST = Symbol('an index into an empty list');
function resolve(expr: unknown, body: unknown): unknown {
  if (typeof expr !== 'string' || !expr.startsWith('$response.body#/')) return expr;
  let at: unknown = body;
  for (const part of expr.slice('$response.body#/'.length).split('/')) {
    if (Array.isArray(at) && at.length === 0) return EMPTY_LIST;
    at = at && typeof at === 'object' ? (at as Record<string, unknown>)[part] : undefined;
  }
  return at;
}

t.test(
  'every link names a real operation and parameter, and followed from a real answer it finds its target',
  async (t) => {
    const byId = new Map(ops.map((o) => [o.id, o]));
    const wrong: string[] = [];
    let links = 0;
    let followed = 0;
    for (const o of ops)
      for (const [status, r] of Object.entries(o.op.responses as Record<string, Schema>))
        for (const [name, link] of Object.entries((r.links ?? {}) as Record<string, Schema>)) {
          links++;
          const target = byId.get(link.operationId);
          if (!target) {
            wrong.push(`${o.id} ${status} link ${name}: no operation ${link.operationId}`);
            continue;
          }
          const names = new Set(((target.op.parameters ?? []) as Schema[]).map((p) => p.name));
          for (const p of Object.keys(link.parameters ?? {}))
            if (!names.has(p)) wrong.push(`${o.id} link ${name}: ${target.id} has no parameter ${p}`);
          const source = linkSources.get(o.id);
          if (!source) continue;
          const first = await send(o, source);
          if (first.status >= 300) {
            wrong.push(`${o.id} again: ${first.status} ${first.text.slice(0, 200)}`);
            continue;
          }
          const answer = first.body;
          const values = Object.fromEntries(
            Object.entries((link.parameters ?? {}) as Record<string, unknown>).map(([k, e]) => [k, resolve(e, answer)]),
          );
          const body = link.requestBody
            ? Object.fromEntries(
                Object.entries(link.requestBody as Record<string, unknown>).map(([k, e]) => [k, resolve(e, answer)]),
              )
            : undefined;
          // A link to a list's first item has nothing to follow when the list is empty.
          if (Object.values({ ...values, ...body }).includes(EMPTY_LIST)) continue;
          if (Object.values({ ...values, ...body }).some((v) => v === undefined)) {
            wrong.push(
              `${o.id} link ${name}: an expression resolves to nothing in ${JSON.stringify(answer).slice(0, 200)}`,
            );
            continue;
          }
          const [sample] = fc.sample(validRequests(target, new Map(), fits), { seed: SEED, numRuns: 1 });
          const path = target.path.replace(/\{(\w+)\}/g, (_, n) => encodeURIComponent(String(values[n] ?? 1)));
          const query = Object.fromEntries(Object.entries(values).filter(([k]) => !target.path.includes(`{${k}}`)));
          const withBody = bodySchema(target) ? { ...(sample.body as object), ...body } : undefined;
          const res = await send(target, {
            path,
            query: { ...sample.query, ...(query as Record<string, string>) },
            body: withBody,
          });
          followed++;
          const off = conformance(target, res);
          if (off || res.status === 404)
            wrong.push(`${o.id} -> ${target.id}: ${off ?? `404 ${res.text.slice(0, 200)}`}`);
        }
    t.comment(`links: ${links} declared, ${followed} followed from real answers`);
    t.ok(links > 10, 'the document declares links');
    t.same(wrong, []);
  },
);
