// Every console route definition, by resource. The one list: core mounts it (core/console/routes/index.ts binds
// a handler to each), /openapi.json publishes it, and the browser takes its answer types from it (type-only).

import { ACCOUNT } from './account.js';
import { ADMIN_INSIGHT } from './admin-insight.js';
import { ADMIN_ORDERS } from './admin-orders.js';
import { ADMIN_PAYMENTS } from './admin-payments.js';
import { ADMIN_USERS } from './admin-users.js';
import { ALERTS } from './alerts.js';
import { AUTH } from './auth.js';
import { CANARIES } from './canaries.js';
import { CATALOGUE } from './catalogue.js';
import type { BodyOf, QueryOf, ResponseOf, RouteDef } from './define.js';
import { EXPORTS } from './exports.js';
import { KEYS } from './keys.js';
import { ORDERS } from './orders.js';
import { SECURITY } from './security.js';
import { USAGE } from './usage.js';
import { OPERATOR_WEBHOOKS, WEBHOOKS } from './webhooks.js';

export const CONSOLE_GROUPS = {
  account: ACCOUNT,
  keys: KEYS,
  catalogue: CATALOGUE,
  alerts: ALERTS,
  auth: AUTH,
  security: SECURITY,
  orders: ORDERS,
  adminPayments: ADMIN_PAYMENTS,
  usage: USAGE,
  webhooks: WEBHOOKS,
  operatorWebhooks: OPERATOR_WEBHOOKS,
  exports: EXPORTS,
  canaries: CANARIES,
  adminOrders: ADMIN_ORDERS,
  adminInsight: ADMIN_INSIGHT,
  adminUsers: ADMIN_USERS,
};

export const CONSOLE_ROUTES: RouteDef[] = Object.values(CONSOLE_GROUPS).flatMap((g) => Object.values(g));

type Groups = typeof CONSOLE_GROUPS;
type Intersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;
/** Every route by operationId. */
export type ConsoleApi = Intersection<Groups[keyof Groups]>;

/** The success answer of a route, by operationId: `Reply<'listKeys'>`. */
export type Reply<Id extends keyof ConsoleApi> = ConsoleApi[Id] extends RouteDef ? ResponseOf<ConsoleApi[Id]> : never;
/** The body a route takes. */
export type RequestBody<Id extends keyof ConsoleApi> = ConsoleApi[Id] extends RouteDef ? BodyOf<ConsoleApi[Id]> : never;
/** The query a route takes. */
export type RequestQuery<Id extends keyof ConsoleApi> = ConsoleApi[Id] extends RouteDef
  ? QueryOf<ConsoleApi[Id]>
  : never;
