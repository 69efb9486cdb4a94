// The published OpenAPI document (real operations.yaml and plugins) passes Redocly's recommended ruleset with
// no errors, and only the warnings listed below, each accepted for the reason given.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';

/** Warnings we accept, by rule id, and why. Anything else fails the test. */
const ACCEPTED_WARNINGS: Record<string, string> = {
  // The document is served by the gateway itself (servers: [{url: '/'}]); a licence is the operator's business.
  'info-license': 'no licence: each deployment is its operator\'s service',
  'info-license-url': 'no licence: see above',
};

let h: TestApp;
t.before(async () => {
  h = await createTestApp({ operationsYaml: readFileSync('operations.yaml', 'utf8'), pluginDirs: [resolve('plugins')] });
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
