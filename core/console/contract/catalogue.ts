// What can be called and bought, and what a new account gets. No login needed: the docs pages and the pricing
// page show them to visitors too. Plus the admin's view of which operations are configured.
import { Operation, Package, Plan } from './components.js';
import { defineRoutes } from './define.js';
import { answer, anyObject, list, rBool, ref, rStr, rTokens, Type } from './schema.js';

export const CATALOGUE = defineRoutes({
  operations: {
    method: 'GET',
    path: '/console/api/operations',
    summary: 'Operation catalogue',
    auth: 'none',
    responses: { 200: answer({ operations: list(ref('Operation', Operation)) }) },
  },
  plans: {
    method: 'GET',
    path: '/console/api/plans',
    summary: 'Subscription plans',
    auth: 'none',
    responses: { 200: answer({ plans: list(ref('Plan', Plan)) }) },
  },
  packages: {
    method: 'GET',
    path: '/console/api/packages',
    summary: 'TOKEN packages',
    auth: 'none',
    responses: { 200: answer({ packages: list(ref('Package', Package)) }) },
  },
  offer: {
    method: 'GET',
    path: '/console/api/offer',
    summary: 'What a new account gets: trial_tokens TOKEN once (0 when there is no trial or sign-up is closed)',
    auth: 'none',
    responses: { 200: answer({ trial_tokens: rTokens }) },
  },
  adminOperations: {
    method: 'GET',
    path: '/console/api/admin/operations',
    summary:
      'Operations with availability; for an unavailable one, the settings (env variables) that would make it available',
    auth: 'admin',
    responses: {
      200: answer({
        operations: list(
          answer({
            code: rStr,
            name: rStr,
            text: anyObject,
            plugin: rStr,
            available: rBool,
            missing: Type.Array(Type.Unknown()),
          }),
        ),
      }),
    },
  },
});
