// The gateway the upstream tests share: an `item` operation (input `id`) sold from configured upstreams at
// https://<id>.example.com/v1/items/{{ input.id }}, in a test app with the built-in plugins. Used by the tests of
// failover, kept NOT_FOUNDs, disabled upstreams and the canaries of upstreams (test/health/upstream-support.ts).
import { resolve } from 'node:path';
import { createTestApp, type TestApp } from '../../helpers/create-test-app.js';

/** A `response` field of the item: `name: { type: string, zh, en }`. */
export const field = (name: string, zh: string, en: string): string =>
  `\n      ${name}: { type: string, zh: ${zh}, en: ${en} }`;
export const ID_FIELD = field('id', '编号', 'Id');

/**
 * One upstream of the item: `head` goes after its id (priority, cost, circuit...), `request` after its url (headers),
 * `rules` after the request (errors, result), each as YAML lines at the upstream's indentation.
 */
export const itemUpstream = (id: string, head: string, request: string, rules: string): string => `
      - id: ${id}${head}
        request:
          url: https://${id}.example.com/v1/items/{{ input.id }}${request}${rules}`;

/** The operations.yaml: the item with these `response` fields, more of its own keys (`extra`) and upstreams. */
export const itemYaml = (fields: string, upstreams: string, extra = ''): string => `
operations:
  - code: item
    price_per_call: 0.01
    timeout_ms: 2000
    input: { type: object, required: [id], properties: { id: { type: string, maxLength: 40 } } }
    response:${fields}${extra}
    upstreams:${upstreams}
`;

/** A test app serving `yaml` with the built-in plugins (plugins/http among them). */
export const upstreamApp = (yaml: string): Promise<TestApp> =>
  createTestApp({ operationsYaml: yaml, pluginDirs: [resolve('plugins')] });

/** The item's usual error rule: a 404 is the caller's NOT_FOUND, in both languages. */
export const NOT_FOUND_RULE = `
        errors:
          - when: status = 404
            code: NOT_FOUND
            message: { zh: 没有这个条目, en: No such item }`;
