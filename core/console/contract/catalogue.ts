// What can be called and bought, and what a new account gets. No login needed: the docs pages and the pricing
// page show them to visitors too. Plus the admin's view of which operations are configured, and how their
// configured upstreams stand.
import { catalogueText, Operation, Package, Plan } from './components.js';
import { defineRoutes } from './define.js';
import { answer, list, oneOf, orNull, rBool, ref, rInt, rStr, rTime, rTokens, type Static, Type } from './schema.js';

/** One configured upstream of an operation (operations.yaml `upstreams:`), core/console/api/upstream-status.ts. */
export const UpstreamStatus = answer({
  id: rStr,
  state: oneOf(['ok', 'cooling_down', 'disabled', 'demoted'], {
    description:
      'cooling_down: its circuit opened after failures; disabled: an error rule (disable_s); demoted: its canary is down',
  }),
  until: orNull(rTime),
  reason: orNull(rStr),
  last_error: orNull(answer({ code: rStr, at: rTime })),
  cost_per_call: rTokens,
  priority: rInt,
  weight: rInt,
  missing: list(rStr),
});
export type UpstreamStatus = Static<typeof UpstreamStatus>;

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
      'Operations with availability; for an unavailable one, the settings (env variables) that would make it available; each configured upstream with its state (ok, cooling_down, disabled, demoted by its canary), until when, its last error, cost_per_call, priority and weight',
    auth: 'admin',
    responses: {
      200: answer({
        operations: list(
          answer({
            code: rStr,
            name: rStr,
            text: catalogueText,
            plugin: rStr,
            available: rBool,
            missing: Type.Array(list(rStr), {
              description: 'one group per way to configure it: the settings it still lacks',
            }),
            upstreams: list(UpstreamStatus),
          }),
        ),
      }),
    },
  },
});
