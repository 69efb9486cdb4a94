// The plugin contract: the only module a plugin handler may import (types only).
// A plugin runs inside an isolated-vm isolate: no Node APIs, no timers, no fetch of its own.
// Everything it needs from outside comes through `host`.

/** Error codes a plugin may return. The pipeline maps each to an HTTP status (core/http/errors.ts). */
export type PluginErrorCode =
  | 'INVALID_INPUT' // 400: input passed the schema but is still not usable (e.g. malformed tracking number)
  | 'NOT_FOUND' // 404: the upstream says the thing does not exist (deleted post, unknown number)
  | 'UNSUPPORTED' // 422: well-formed but not something this operation handles (e.g. a link of another site)
  | 'UPSTREAM_FAILED' // 502: upstream answered with an error, captcha, empty body or a changed shape
  | 'UPSTREAM_TIMEOUT' // 504: upstream too slow
  | 'UNAVAILABLE'; // 503: the operation is not configured (e.g. provider credentials missing)

export interface PluginSuccess<Out> {
  ok: true;
  data: Out;
  /** Optional override of the operation's cache TTL for this result, in seconds (0 = do not cache). */
  cache_ttl?: number;
}

export interface PluginFailure {
  ok: false;
  code: PluginErrorCode;
  /** Public message: shown to the caller as is. Say what failed and, where useful, which step. */
  message: string;
  /** The same message in Chinese, for callers asking for zh (else the catalogue's text wraps `message`). */
  message_zh?: string;
  /**
   * The technical reason, for the operator only (a network error's host and errno, a provider's raw answer): the
   * gateway logs it with the request id and reads the failure's class from it, and never shows it to the caller.
   * Keep it out of `message` and `message_zh`.
   */
  detail?: string;
  /** Another upstream might answer (a configured operation's gateway then tries its next upstream). */
  next?: boolean;
  /** Take the upstream out of rotation for this many seconds (bad credential, quota used up). */
  disable_s?: number;
}

export type PluginOutcome<Out> = PluginSuccess<Out> | PluginFailure;

export interface HostFetchInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** 'follow' (default): the host follows redirects itself, re-checking every hop. 'manual': a 3xx is returned as is. */
  redirect?: 'follow' | 'manual';
  /** Per-request timeout in ms; never longer than what is left of the call's deadline. */
  timeout_ms?: number;
}

export interface HostFetchResponse {
  status: number;
  /** Final URL after redirects the host followed. */
  url: string;
  /** Response headers, names lower-cased. Repeated headers are joined with ", " (see set_cookies). */
  headers: Record<string, string>;
  /** Every Set-Cookie header of the final response, as sent. */
  set_cookies: string[];
  /** Body decoded as UTF-8 text. */
  body: string;
  /** URLs of the redirect hops the host followed, in order (empty when none). */
  redirects: string[];
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface Host {
  /**
   * Fetch through the host bridge. Rejects (with an Error whose message starts with "fetch refused:" or
   * "fetch failed:" or "fetch timed out:") when the URL is not allowed, resolves to a private address,
   * the body is over the size cap, or the network fails. HTTP error statuses resolve normally.
   */
  fetch(url: string, init?: HostFetchInit): Promise<HostFetchResponse>;
  log(level: LogLevel, message: string, fields?: Record<string, unknown>): void;
  /** The operation's `options` from operations.yaml, with ${ENV} substituted. */
  readonly options: Readonly<Record<string, unknown>>;
  /** The code of the operation this call runs for (one plugin can serve several codes). */
  readonly operation: string;
  /**
   * Set only on a canary's probe of one of the plugin's own providers (operations.yaml `canary.providers`): the
   * provider id to try alone, without failing over to the others, so a broken provider behind a working one is
   * seen. A customer's call never has it.
   */
  readonly pin?: string;
  /** Read a data file declared in plugin.json `assets` (bytes). Cache it in module scope: the context is reused. */
  asset(name: string): Promise<ArrayBuffer>;
  /** Whether an asset is available (an optional, option-driven asset may be absent). */
  hasAsset(name: string): Promise<boolean>;
  /** Current time in ms since the epoch (the isolate has no trustworthy clock of its own). */
  now(): number;
  /** Hash of a UTF-8 string, computed by the host (signing upstream requests needs MD5/SHA without a JS crypto lib). */
  digest(algorithm: 'md5' | 'sha1' | 'sha256', data: string, encoding: 'hex' | 'base64'): string;
  /** HMAC of a UTF-8 string under a UTF-8 key, computed by the host (request signing). */
  hmac(algorithm: 'md5' | 'sha1' | 'sha256', key: string, data: string, encoding: 'hex' | 'base64'): string;
}

export interface OperationPlugin<In = Record<string, unknown>, Out = unknown> {
  run(input: In, host: Host): Promise<PluginOutcome<Out>>;
}

/** plugin.json */
export interface PluginManifest {
  name: string;
  version: string;
  description?: string;
  /** Host names the plugin may fetch. "*.example.com" matches sub-domains (not example.com itself). */
  allow_hosts: string[];
  /**
   * The hosts come from each call's operation instead (operations.yaml `upstreams`, core/config/upstream-config.ts):
   * a call may reach only the hosts its operation's configuration names. `allow_hosts` must then be empty.
   */
  hosts_from_operation?: boolean;
  timeout_ms: number;
  memory_mb: number;
  /** Declared data files. `path` is relative to the plugin folder; `option` names an operation option holding a path. */
  assets?: Array<{ name: string; path?: string; option?: string; optional?: boolean }>;
  /** Max response body the host accepts for one fetch, bytes (default 5 MiB). */
  max_response_bytes?: number;
}
