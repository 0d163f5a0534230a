/** What every call of the typed client resolves to (it never throws on an HTTP error). */

/** The problem details of a resource API error (RFC 9457). */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  invalid_params?: { name: string; reason: string }[];
}

/**
 * A failed call: the HTTP status, a message for people, and what the server said. `action` and
 * `errors` come from an auth envelope, `problem` from the resource API (whose `invalid_params` are
 * also given as `errors`, by name); `body` is the whole error body (an auth envelope's `data` and
 * `redirect_to`, for example `data.factors` of `sudo.required`).
 */
export interface ClientError {
  status: number;
  message: string;
  action?: string;
  errors?: Record<string, string>;
  problem?: ProblemDetails;
  body?: unknown;
}

/** `{ data, error }`: exactly one of them is null. */
export type ClientResult<T> = { data: T; error: null } | { data: null; error: ClientError };

/** Per-call options. */
export interface RequestOptions {
  /** Headers of this call only (`If-Match`, `Idempotency-Key`, …). */
  headers?: Record<string, string>;
  signal?: AbortSignal;
}
