/**
 * Errors that are the GitLab REST wire format: each carries its HTTP status and the exact JSON body GitLab sends.
 * Domain verbs throw them; `lib/api/handler.ts` renders them for the API and our UI shows `message`.
 */
export abstract class ApiError extends Error {
  abstract readonly status: number;
  abstract body(): Record<string, unknown>;
  headers(): Record<string, string> {
    return {};
  }
}

/** 401 `{"message":"401 Unauthorized"}`: no credentials, or credentials we do not recognise. */
export class UnauthorizedError extends ApiError {
  readonly status = 401;
  constructor() {
    super("401 Unauthorized");
  }
  body() {
    return { message: this.message };
  }
}

/** 401 for a token we know but that can no longer be used (expired or revoked). */
export class InvalidTokenError extends ApiError {
  readonly status = 401;
  constructor(readonly description: string) {
    super(description);
  }
  body() {
    return { error: "invalid_token", error_description: this.description };
  }
  headers(): Record<string, string> {
    return {
      "WWW-Authenticate": `Bearer realm="GitLab", error="invalid_token", error_description="${this.description}"`,
    };
  }
}

/** 403 for a token that is valid but was not granted any scope this endpoint accepts. */
export class InsufficientScopeError extends ApiError {
  readonly status = 403;
  constructor(readonly acceptedScopes: readonly string[]) {
    super("The request requires higher privileges than provided by the access token.");
  }
  body() {
    return { error: "insufficient_scope", error_description: this.message, scope: this.acceptedScopes.join(" ") };
  }
}

/** 403 `{"message":"403 Forbidden"}` (optionally with GitLab's " - reason" suffix). */
export class ForbiddenError extends ApiError {
  readonly status = 403;
  constructor(reason?: string) {
    super(reason ? `403 Forbidden - ${reason}` : "403 Forbidden");
  }
  body() {
    return { message: this.message };
  }
}

/** 403 `{"message":"<text>"}`: a refusal GitLab words itself (its `render_api_error!(message, 403)`), without the prefix. */
export class RefusedError extends ApiError {
  readonly status = 403;
  body() {
    return { message: this.message };
  }
}

/** 404 `{"message":"404 <Thing> Not Found"}`, or `{"message":"404 Not Found"}` where GitLab names no thing. */
export class NotFoundError extends ApiError {
  readonly status = 404;
  constructor(readonly thing?: string) {
    super(thing ? `404 ${thing} Not Found` : "404 Not Found");
  }
  body() {
    return { message: this.message };
  }
}

/**
 * A project named by a path it no longer has, which a rename left leading to it (a redirect route), and which the
 * caller may see. It is the 404 it extends wherever a move is not followed; the API answers GitLab's redirect (or its
 * 405 for other methods), git serves the project, and our pages redirect to its new path.
 */
export class ProjectMovedError extends NotFoundError {
  constructor(
    readonly projectId: number,
    /** Where the project is now: `namespace/project`. */
    readonly fullPath: string,
  ) {
    super("Project");
  }
}

/**
 * A group named by a full path it had before a rename or a move, which the caller may see: the 404 it extends wherever
 * the move is not followed; feeds redirect to the group's feed at its new path (the pages do so themselves).
 */
export class GroupMovedError extends NotFoundError {
  constructor(
    /** Where the group is now. */
    readonly fullPath: string,
  ) {
    super("Group");
  }
}

/** 404 `{"error":"404 Not Found"}` for a path no endpoint serves. */
export class RouteNotFoundError extends ApiError {
  readonly status = 404;
  constructor() {
    super("404 Not Found");
  }
  body() {
    return { error: this.message };
  }
}

/** 405 `{"message":"405 Method Not Allowed"}`: GitLab's `not_allowed!`, an action this kind of credential cannot take. */
export class MethodNotAllowedError extends ApiError {
  readonly status = 405;
  constructor() {
    super("405 Method Not Allowed");
  }
  body() {
    return { message: this.message };
  }
}

/**
 * 405 `{"error":"Offset pagination has a maximum allowed offset of …"}`: an offset page past the limit of a list that
 * keyset pagination can page instead, in GitLab's words.
 */
export class OffsetLimitExceededError extends ApiError {
  readonly status = 405;
  constructor(limit: number, type: string) {
    super(
      `Offset pagination has a maximum allowed offset of ${limit} for requests that return objects of type ${type}. ` +
        "Remaining records can be retrieved using keyset pagination.",
    );
  }
  body() {
    return { error: this.message };
  }
}

/** 405 `{"error":"Keyset pagination is not yet available for this type of request"}`: a keyset page in an order GitLab cannot page by keyset. */
export class KeysetUnavailableError extends ApiError {
  readonly status = 405;
  constructor() {
    super("Keyset pagination is not yet available for this type of request");
  }
  body() {
    return { error: this.message };
  }
}

/**
 * 429 `{"message":{"error":"This endpoint has been requested too many times. Try again later."}}` with `Retry-After`:
 * GitLab's application rate limits on single endpoints (its `check_rate_limit!`), unlike the request throttles.
 */
export class TooManyRequestsError extends ApiError {
  readonly status = 429;
  constructor(readonly retryAfterSeconds: number) {
    super("This endpoint has been requested too many times. Try again later.");
  }
  body() {
    return { message: { error: this.message } };
  }
  headers(): Record<string, string> {
    return { "Retry-After": String(this.retryAfterSeconds) };
  }
}

/** 409 `{"message":"…"}`, e.g. "Email has already been taken". */
export class ConflictError extends ApiError {
  readonly status = 409;
  /** The attribute whose value is taken (`username`), so a form can show the message on that field. */
  constructor(
    message: string,
    readonly attribute?: string,
  ) {
    super(message);
  }
  body() {
    return { message: this.message };
  }
}

/** 400 `{"error":"<param> <problem>"}`: a request parameter that is missing, malformed or not allowed. */
export class ParameterError extends ApiError {
  readonly status = 400;
  constructor(
    readonly param: string,
    readonly problem: string,
  ) {
    super(`${param} ${problem}`);
  }
  body() {
    return { error: this.message };
  }
}

/** 400 `{"message":{"<attribute>":["<problem>"]}}`: well-formed input the model rejects (GitLab's validation errors). */
export class ValidationError extends ApiError {
  readonly status = 400;
  constructor(readonly errors: Record<string, string[]>) {
    super(
      Object.entries(errors)
        .map(([attribute, problems]) => `${attribute} ${problems.join(", ")}`)
        .join("; "),
    );
  }
  body() {
    return { message: this.errors };
  }
}

/** 422 `{"message":"<text>"}`: GitLab's `error!(message, 422)` / `render_api_error!(message, 422)`. */
export class UnprocessableError extends ApiError {
  readonly status = 422;
  body() {
    return { message: this.message };
  }
}

/** 400 `{"message":"…"}` for a request the server cannot read at all (bad JSON, oversize body). */
export class BadRequestError extends ApiError {
  readonly status = 400;
  body() {
    return { message: this.message };
  }
}

/**
 * 429 `{"message":"429 Too Many Requests - …"}` with `Retry-After`: more text is waiting to be rendered than the
 * render threads take, so the save did not happen. GitLab clients retry a 429 after `Retry-After` by themselves.
 * The message is for people (our pages show it); the body is the API's.
 */
export class RenderingBusyError extends ApiError {
  readonly status = 429;
  constructor(readonly retryAfterSeconds: number) {
    super(`Too much text is waiting to be displayed right now. Try again in ${retryAfterSeconds} seconds.`);
  }
  body() {
    return { message: "429 Too Many Requests - too much text is waiting to be rendered, retry later" };
  }
  headers(): Record<string, string> {
    return { "Retry-After": String(this.retryAfterSeconds) };
  }
}
