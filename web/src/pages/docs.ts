// Operation docs generated from the live catalogue (operations.yaml): parameters from the input schema,
// example request in six languages, example response, price, caching and the error codes.

import { get } from '../api.js';
import { codeTabs } from '../code-tabs.js';
import type { Json } from '../codegen.js';
import { h } from '../dom.js';
import { hintView } from '../error-explain.js';
import { prettyJson, tokens } from '../format.js';
import { errorInfo, getLang, t } from '../i18n/index.js';
import { jsonView } from '../json-view.js';
import { opDescription, opName } from '../op-text.js';
import { paramText } from '../param-text.js';
import type { Route } from '../router.js';
import { link } from '../router.js';
import { constraintText, requiredInfo, typeOf } from '../schema-form.js';
import { stackOnPhone } from '../stack-table.js';
import { operationStates, statusDot, statusLine } from '../status-dot.js';
import type { Operation, OperationCatalogue, ResponseFieldRow } from '../types.js';
import { badge, card, notice, pageHeader, table } from '../ui.js';

/** The errors an /api call can answer with (core/http/errors.ts), in the order a caller meets them. */
export const API_ERRORS: Array<[string, number]> = [
  ['INVALID_INPUT', 400],
  ['MISSING_API_KEY', 401],
  ['INVALID_API_KEY', 401],
  ['INSUFFICIENT_BALANCE', 402],
  ['KEY_DISABLED', 403],
  ['KEY_EXPIRED', 403],
  ['IP_NOT_ALLOWED', 403],
  ['OPERATION_NOT_ALLOWED', 403],
  ['UNKNOWN_OPERATION', 404],
  ['NOT_FOUND', 404],
  ['METHOD_NOT_ALLOWED', 405],
  ['REQUEST_TIMEOUT', 408],
  ['IDEMPOTENCY_CONFLICT', 409],
  ['PAYLOAD_TOO_LARGE', 413],
  ['UNSUPPORTED_MEDIA_TYPE', 415],
  ['UNSUPPORTED', 422],
  ['RATE_LIMITED', 429],
  ['CONCURRENCY_LIMITED', 429],
  ['HEADERS_TOO_LARGE', 431],
  ['UPSTREAM_FAILED', 502],
  ['UNAVAILABLE', 503],
  ['OPERATION_UNAVAILABLE', 503],
  ['UPSTREAM_TIMEOUT', 504],
  ['INTERNAL', 500],
];

export const PLACEHOLDER_KEY = 'sk_your_api_key';

function ttl(seconds: number): string {
  if (seconds <= 0) return t('docs.noCache');
  if (seconds % 86400 === 0) return t('docs.days', { n: seconds / 86400 });
  if (seconds % 3600 === 0) return t('docs.hours', { n: seconds / 3600 });
  return t('docs.minutes', { n: Math.round(seconds / 60) });
}

type States = Awaited<ReturnType<typeof operationStates>>;

function renderIndex(main: HTMLElement, ops: Operation[], states: States): void {
  main.append(
    pageHeader(
      t('docs.title'),
      t('docs.subtitle'),
      h(
        'a',
        { class: 'btn btn-ghost', attrs: { href: '/openapi.json', target: '_blank', rel: 'noopener' } },
        t('docs.openapi'),
      ),
    ),
    card(
      t('docs.basics'),
      h('p', null, t('docs.basicsText')),
      h(
        'pre',
        { class: 'code' },
        `POST ${location.origin}/api/{code}\nX-API-Key: sk_...\nContent-Type: application/json`,
      ),
      h('p', { class: 'muted' }, t('docs.envelopeText')),
    ),
    h(
      'div',
      { class: 'op-grid' },
      ops.map((o) =>
        h(
          'a',
          { class: 'op-card', attrs: { href: `/console/docs/${encodeURIComponent(o.code)}`, 'data-op': o.code } },
          h(
            'div',
            { class: 'op-head' },
            h('strong', null, statusDot(o.code, states), opName(o)),
            o.available === false ? badge(t('docs.unavailable'), 'muted') : badge(`${tokens(o.price)} TOKEN`, 'info'),
          ),
          h('code', { class: 'muted' }, `/api/${o.code}`),
          h('p', { class: 'muted small' }, opDescription(o)),
        ),
      ),
    ),
  );
}

/** What `data` holds on success, one row per field (nested fields as author.name, traces[].time), in the UI's language. */
// The docs' tables read as one card per row on a phone (stackOnPhone): as tables, a long type such as
// "string (中国移动 | 中国联通 | …)" pushed every description past the right edge.
function responseFields(op: Operation): HTMLElement {
  const rows = (op.response ?? []).map((f: ResponseFieldRow) => [
    h('code', null, f.path),
    h('code', { class: 'small' }, f.type),
    f.required ? h('span', null, t('docs.always')) : badge(t('docs.sometimes'), 'muted'),
    getLang() === 'zh' ? f.zh || f.en : f.en || f.zh,
  ]);
  return card(
    t('docs.responseFields'),
    h('p', { class: 'muted small' }, t('docs.responseFieldsNote')),
    stackOnPhone(
      table(
        [t('col.name'), t('col.type'), t('docs.presence'), t('col.description')],
        rows,
        t('docs.noResponseFields'),
        'docs-fields',
      ),
    ),
  );
}

function renderOperation(main: HTMLElement, op: Operation, states: States): void {
  const { required, oneOf } = requiredInfo(op.input);
  const params = Object.entries(op.input.properties ?? {}).map(([name, s]) => [
    h('code', null, name),
    typeOf(s),
    required.has(name) ? badge(t('docs.required'), 'warn') : h('span', { class: 'muted' }, t('docs.optional')),
    h(
      'div',
      null,
      paramText(s, getLang()),
      constraintText(s) ? h('div', { class: 'muted small' }, constraintText(s)) : null,
    ),
  ]);
  const example = (op.example ?? {}) as { [k: string]: Json };
  const response = {
    success: true,
    data: op.response_example ?? {},
    deducted: op.price,
    remaining: 9.995,
    cached: false,
    request_id: 'req_...',
  };
  main.append(
    pageHeader(opName(op), opDescription(op), link(`debugger?op=${encodeURIComponent(op.code)}`, t('docs.tryIt'))),
    h('p', null, link('docs', `← ${t('docs.all')}`), ' ', statusLine(op.code, states)),
    ...(op.available === false ? [notice('warn', t('docs.unavailableNote'))] : []),
    h(
      'div',
      { class: 'stats' },
      h(
        'div',
        { class: 'stat' },
        h('div', { class: 'stat-label' }, t('docs.price')),
        h('div', { class: 'stat-value' }, tokens(op.price)),
        h('div', { class: 'stat-sub' }, t('docs.perCall')),
      ),
      h(
        'div',
        { class: 'stat' },
        h('div', { class: 'stat-label' }, t('docs.cache')),
        h('div', { class: 'stat-value' }, ttl(op.cache_ttl)),
        h('div', { class: 'stat-sub' }, t('docs.cacheNote')),
      ),
      h(
        'div',
        { class: 'stat' },
        h('div', { class: 'stat-label' }, t('docs.timeout')),
        h('div', { class: 'stat-value' }, `${op.timeout_ms / 1000} s`),
        h('div', { class: 'stat-sub' }, t('docs.timeoutNote')),
      ),
    ),
    card(
      t('docs.endpoints'),
      h(
        'ul',
        { class: 'routes' },
        op.routes.map((r) => h('li', null, h('code', null, r))),
      ),
    ),
    card(
      t('docs.params'),
      stackOnPhone(
        table(
          [t('col.name'), t('col.type'), t('col.required'), t('col.description')],
          params,
          t('debugger.noParams'),
          'docs-params',
        ),
      ),
      oneOf.length
        ? h('p', { class: 'hint' }, t('docs.oneOf', { groups: oneOf.map((g) => g.join(' + ')).join(' / ') }))
        : null,
    ),
    card(
      t('docs.exampleRequest'),
      h('p', { class: 'muted small' }, t('docs.keyPlaceholder', { key: PLACEHOLDER_KEY })),
      codeTabs({ url: `${location.origin}/api/${op.code}`, apiKey: PLACEHOLDER_KEY, body: example }),
    ),
    responseFields(op),
    card(t('docs.exampleResponse'), jsonView(prettyJson(response))),
    card(
      t('docs.errors'),
      stackOnPhone(
        table(
          [t('col.httpStatus'), t('col.code'), t('col.description'), t('docs.whatToDo')],
          API_ERRORS.map(([code, status]) => [
            String(status),
            h('code', null, code),
            errorInfo(code)?.message ?? code,
            h('span', { class: 'small' }, hintView(code)),
          ]),
          undefined,
          'docs-errors',
        ),
      ),
    ),
  );
}

export async function renderDocs(main: HTMLElement, route: Route): Promise<void> {
  const [ops, states] = await Promise.all([
    get<OperationCatalogue>('operations').then((r) => r.operations),
    operationStates(),
  ]);
  const code = route.parts[1];
  if (!code) return renderIndex(main, ops, states);
  const op = ops.find((o) => o.code === code);
  if (!op) {
    main.append(pageHeader(t('docs.unknown', { code })), h('p', null, link('docs', t('docs.all'))));
    return;
  }
  renderOperation(main, op, states);
}
