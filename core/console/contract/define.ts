// One definition per console route: method, path, auth, request schemas (body, query, params) and a response
// schema per success status. Core mounts them (core/console/routes/mount-routes.ts: validation, then a handler
// that receives the typed input), publishes them (/openapi.json) and the browser imports their types. Node-free:
// schemas and types only, no handler here (handlers live in core/console/routes/, typed by these definitions).
import type { Static, TSchema } from './schema.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
/** none: anyone; user: a user token; admin: a user token with the admin role. */
export type Auth = 'none' | 'user' | 'admin';
export type SuccessStatus = 200 | 201 | 202;

/** An OpenAPI link: the operation it leads to and where its inputs come from (`$response.body#/key/id`). */
export interface RouteLink {
  operationId: string;
  parameters?: Record<string, string>;
  requestBody?: Record<string, string>;
  description: string;
}

export interface RouteDef {
  /** The OpenAPI operationId (the key of its group, set by defineRoutes). */
  id: string;
  method: Method;
  /** Koa path, `:name` for a path parameter. */
  path: string;
  auth: Auth;
  summary: string;
  body?: TSchema;
  query?: TSchema;
  params?: TSchema;
  /** The answer per success status; the first is the usual one (handlers may answer another listed status). */
  responses: Partial<Record<SuccessStatus, TSchema>>;
  /** text/csv: the answer is a CSV document, not JSON; json+csv: JSON, or CSV when asked with ?format=csv. */
  produces?: 'text/csv' | 'json+csv';
  /** OpenAPI links from the success answer to the routes that act on what it made or listed, by link name. */
  links?: Record<string, RouteLink>;
  /** Catalogue codes (core/http/error-text.ts) this route answers beyond the console's common ones. */
  errors?: readonly string[];
}

/** A group of routes keyed by operationId. */
export function defineRoutes<const G extends Record<string, Omit<RouteDef, 'id'>>>(
  group: G,
): { [K in keyof G]: G[K] & { id: K & string } } {
  return Object.fromEntries(Object.entries(group).map(([id, d]) => [id, { id, ...d }])) as {
    [K in keyof G]: G[K] & { id: K & string };
  };
}

type StaticOf<T> = T extends TSchema ? Static<T> : undefined;
export type BodyOf<D extends RouteDef> = StaticOf<D['body']>;
export type QueryOf<D extends RouteDef> = StaticOf<D['query']>;
export type ParamsOf<D extends RouteDef> = StaticOf<D['params']>;
/** What the route answers on success (a union when it lists more than one status). */
export type ResponseOf<D extends RouteDef> = {
  [S in keyof D['responses']]: StaticOf<D['responses'][S]>;
}[keyof D['responses']];
