// The published OpenAPI document (real operations.yaml and plugins) passes Redocly's recommended ruleset with
// no errors, and only the warnings listed below, each accepted for the reason given.

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import t from 'tap';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';

/** Warnings we accept, by rule id, and why. Anything else fails the test. */
const ACCEPTED_WARNINGS: Record<string, string> = {
  // The document is served by the gateway itself (servers: [{url: '/'}]); a licence is the operator's business.
  'info-license': "no licence: each deployment is its operator's service",
  'info-license-url': 'no licence: see above',
};

let h: TestApp;
t.before(async () => {
  h = await createTestApp({
    operationsYaml: readFileSync('operations.yaml', 'utf8'),
    pluginDirs: [resolve('plugins')],
  });
});
t.teardown(() => h.close());

t.test('Redocly recommended: zero errors, only accepted warnings', async (t) => {
  const res = await h.client.get('/openapi.json');
  t.equal(res.status, 200);
  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lintFromString({ source: JSON.stringify(res.body), absoluteRef: 'openapi.json', config });
  const show = (p: (typeof problems)[number]): string => `${p.ruleId} ${p.location[0]?.pointer ?? ''}: ${p.message}`;
  const errors = problems.filter((p) => p.severity === 'error').map(show);
  t.same(errors, [], 'no errors');
  const unexpected = problems.filter((p) => p.severity !== 'error' && !(p.ruleId in ACCEPTED_WARNINGS)).map(show);
  t.same(unexpected, [], 'no warnings beyond the accepted ones');
});

t.test(
  'the shipped document: unique operationIds, envelope examples, data schemas, no always-refused parameter, links',
  async (t) => {
    const doc = (await h.client.get('/openapi.json')).body;
    const ids: string[] = [];
    for (const item of Object.values(doc.paths) as Array<Record<string, { operationId: string }>>)
      for (const op of Object.values(item)) ids.push(op.operationId);
    t.equal(new Set(ids).size, ids.length, 'every operationId is unique');

    const phone = doc.paths['/api/phone'].get.responses['200'].content['application/json'];
    t.same(phone.schema.allOf[1].properties.data, { $ref: '#/components/schemas/PhoneData' });
    t.same(
      Object.keys(phone.example).sort(),
      ['cached', 'data', 'deducted', 'remaining', 'request_id', 'success'],
      'the example is a whole envelope',
    );
    t.same(phone.example.data, h.services.registry.current.get('phone')?.responseExample);
    t.equal(phone.example.deducted, 0.005);
    t.equal(doc.components.schemas.PhoneData.additionalProperties, false);
    t.match(doc.components.schemas.PhoneData.properties.precision, {
      enum: ['city', 'province', 'none'],
      'x-description-zh': /精确/,
    });

    // Input parameters: English description, the Chinese beside it as x-description-zh (as the data schemas).
    const phoneParam = doc.paths['/api/phone'].get.parameters[0];
    t.match(phoneParam, {
      name: 'phone',
      in: 'query',
      description: /^Mainland mobile number, 11 digits/,
      'x-description-zh': /^中国大陆手机号，11 位/,
      schema: { description: /^Mainland mobile number/, 'x-description-zh': /^中国大陆手机号/ },
    });
    t.match(doc.paths['/api/kuaid'].post.requestBody.content['application/json'].schema.properties.phone, {
      description: "sender's or receiver's phone or its last 4 digits; required for SF and ZTO",
      'x-description-zh': '寄件人或收件人的手机号，或其后 4 位；查顺丰和中通时必填',
    });

    const byId = doc.paths['/api/video/{id}'].get;
    t.same(
      byId.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`),
      ['path:id'],
      'url is not offered where it is always refused',
    );
    t.equal(byId.parameters[0].schema.pattern, '^\\s*\\d{10,32}\\s*$');
    const douyin = doc.paths['/api/douyin'].get.parameters;
    t.match(
      douyin,
      [
        {
          name: 'input',
          in: 'query',
          style: 'form',
          explode: true,
          schema: { oneOf: [{ required: ['url'] }, { required: ['id'] }] },
        },
      ],
      'the url-xor-id rule is kept on GET',
    );

    t.same(Object.keys(doc.paths['/console/api/keys'].post.responses['201'].links).sort(), [
      'deleteKey',
      'rotateKey',
      'updateKey',
    ]);
    t.same(doc.paths['/console/api/orders'].post.responses['201'].links.adminConfirmOrder, {
      operationId: 'adminConfirmOrder',
      parameters: { id: '$response.body#/order/id' },
      description: 'An operator confirms the payment',
    });
    t.same(doc.paths['/console/api/admin/redeem-codes'].post.responses['201'].links.redeem.requestBody, {
      code: '$response.body#/codes/0',
    });
    t.same(doc.paths['/console/api/keys/{id}'].patch.parameters[0].schema, {
      type: 'integer',
      minimum: 1,
      maximum: 9_007_199_254_740_991,
    });
  },
);
