import "server-only";
import type { z } from "zod";
import type { Ctx } from "@/lib/context";
import { env } from "@/lib/env";
import { ParameterError } from "@/lib/errors";
import type { Answer } from "@/lib/http/answer";
import { logger } from "@/lib/log";
import { apiRoute, routeNotFound, type ApiCall, type NextRouteContext } from "./handler";
import { pageRequest, type PageRequest } from "./pagination";
import { keysetPaginationParams, paginationParams } from "./param-types";
import { parseParams, readBody, readQuery } from "./request";
import { json } from "./respond";
import { responseMismatches, type EndpointResponse } from "./responses";
import { actAsSudoUser, sudoIdentifier } from "./sudo";
import type { Scope } from "./scopes";

export const apiMethods = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
export type ApiMethod = (typeof apiMethods)[number];

export type Shape = z.ZodRawShape;
type Parsed<S extends Shape> = z.infer<z.ZodObject<S>>;

/** What an endpoint's handler is given: its declared parameters, parsed and coerced, and the page it asked for. */
export interface EndpointCall<PathShape extends Shape, ParamShape extends Shape> {
  ctx: Ctx;
  request: Request;
  url: URL;
  /** The route's declared path segments (`:id`), parsed and coerced. */
  path: Parsed<PathShape>;
  /** The declared parameters: from the query string for GET, from the query string and the body otherwise. */
  params: Parsed<ParamShape>;
  /** For lists (`paginated`): the `page` and `per_page` asked for. */
  page: PageRequest;
}

/**
 * One method of a route, declared: who may call it, its parameters and its handler. Parameters it does not declare
 * are ignored, as GitLab's API framework ignores them (clients send parameters we do not know); declared ones are
 * validated strictly, with GitLab's messages (`{"error":"<param> is invalid"}`).
 */
export interface Endpoint<PathShape extends Shape = Shape, ParamShape extends Shape = Shape> {
  /** A token must carry at least one of these scopes. */
  scopes: readonly Scope[];
  /** Anonymous callers may use it (a token nobody issued still gets 401). */
  allowAnonymous?: boolean;
  /** The path segments the handler uses, such as `{ id: z.string(), user_id: positiveIntegerParam }`. */
  path?: PathShape;
  params?: ParamShape;
  /**
   * A list: takes `page` and `per_page`, and answers with GitLab's pagination headers. `{ keysetType }`: the list can
   * also be paged by keyset (`pagination=keyset`, which the handler reads), and offset pages past GitLab's offset limit
   * are refused, naming the type of its items (`Project`).
   */
  paginated?: true | { keysetType: string };
  /** The request body it reads, in bytes, when more than the API's 1 MiB (endpoints that take descriptions and notes). */
  maxBodyBytes?: number;
  /** A check of the caller made before any parameter is read (admin-only endpoints: non-admins learn nothing). */
  guard?: (ctx: Ctx) => void;
  /**
   * What it answers when it succeeds: the status and the entity's schema (an array of it for lists), or 204. The
   * OpenAPI document describes the answer with it, and the e2e servers hold every answer to it.
   */
  response: EndpointResponse;
  handle(call: EndpointCall<PathShape, ParamShape>): Promise<Answer>;
}

/** Declares an endpoint with its parameters' types inferred (see `apiResource`). */
export function endpoint<PathShape extends Shape = Record<never, never>, ParamShape extends Shape = Record<never, never>>(
  declared: Endpoint<PathShape, ParamShape>,
): Endpoint<PathShape, ParamShape> {
  return declared;
}

type RouteHandler = (request: Request, routeContext: NextRouteContext) => Promise<Response>;

/**
 * A route of `/api/v4`, written once: its pattern and an endpoint per method it serves. Every other method answers
 * GitLab's JSON 404, as unknown paths do (the framework would otherwise answer 405 with an empty body). A route file
 * is `export const { GET, POST, PUT, PATCH, DELETE } = apiResource("/projects/:id", { GET: endpoint({ … }) })`.
 */
export function apiResource(route: string, endpoints: Partial<Record<ApiMethod, Endpoint>>): Record<ApiMethod, RouteHandler> {
  const handlers = {} as Record<ApiMethod, RouteHandler>;
  for (const method of apiMethods) {
    const declared = endpoints[method];
    if (!declared) {
      handlers[method] = routeNotFound;
      continue;
    }
    handlers[method] = routeFor(route, method, declared);
    declarations.set(handlers[method], { method, route, path: declared.path ?? {}, params: parameterShapeOf(declared), endpoint: declared });
  }
  return handlers;
}

/** What a handler serves: its method, its route, the path segments and parameters it reads, and its endpoint. */
export interface Declaration {
  method: ApiMethod;
  route: string;
  path: Shape;
  params: Shape;
  endpoint: Endpoint;
}

/** Which method of which route a handler serves, for the tests that must reach every route and parameter. */
const declarations = new WeakMap<RouteHandler, Declaration>();

export function declarationOf(handler: unknown): Declaration | undefined {
  return typeof handler === "function" ? declarations.get(handler as RouteHandler) : undefined;
}

function keysetTypeOf(declared: Endpoint): string | undefined {
  return typeof declared.paginated === "object" ? declared.paginated.keysetType : undefined;
}

/** Built once per endpoint, so its schema is too (`parseParams` keeps one schema per shape object). */
const parameterShapes = new WeakMap<Endpoint, Shape>();

/** Every parameter an endpoint reads: its own, and for lists `page`, `per_page` (and `pagination` for keyset lists). */
export function parameterShapeOf(declared: Endpoint): Shape {
  let shape = parameterShapes.get(declared);
  if (!shape) {
    shape = declared.paginated ? { ...paginationParams, ...(keysetTypeOf(declared) ? keysetPaginationParams : {}), ...declared.params } : (declared.params ?? {});
    parameterShapes.set(declared, shape);
  }
  return shape;
}

/** An endpoint's declared path segments, parameters and page, parsed from what a caller sent. */
export type PreparedCall = Pick<EndpointCall<Shape, Shape>, "path" | "params" | "page">;

/**
 * Reads a call of `declared` as the endpoint's declarations say: its path segments, then its parameters (undeclared
 * ones dropped), then the page a list asks for. REST requests and MCP tool calls both come through here, so a value
 * one of them refuses the other refuses with the same message.
 */
export function prepareCall(declared: Endpoint, segments: Record<string, unknown>, input: Record<string, unknown>): PreparedCall {
  const path = declared.path ? parseParams(declared.path, segments) : {};
  const params = parseParams(parameterShapeOf(declared), input);
  const pagination = params as { page?: number; per_page?: number; pagination?: "offset" | "keyset" };
  const keysetType = keysetTypeOf(declared);
  const page = declared.paginated
    ? pageRequest(pagination, { keysetType: pagination.pagination === "keyset" ? undefined : keysetType })
    : pageRequest({});
  return { path, params, page };
}

function routeFor(route: string, method: ApiMethod, declared: Endpoint): RouteHandler {
  return apiRoute({ route, scopes: declared.scopes, allowAnonymous: declared.allowAnonymous }, async (call) => {
    const answer = await answerCall(method, declared, call);
    return checkedAnswer(`${method} ${route}`, declared.response, answer);
  });
}

async function answerCall(method: ApiMethod, declared: Endpoint, { ctx, request, url, params: segments, checkScopes }: ApiCall): Promise<Answer> {
  declared.guard?.(ctx);
  if (method === "GET") return declared.handle({ ctx, request, url, ...prepareCall(declared, segments, readQuery(url)) });
  const body = await readBody(request, declared.maxBodyBytes);
  const caller = await actingAsBodySudo(ctx, request, url, body);
  checkScopes(caller);
  if (caller !== ctx) declared.guard?.(caller);
  return declared.handle({ ctx: caller, request, url, ...prepareCall(declared, segments, { ...readQuery(url), ...body }) });
}

/**
 * With `API_RESPONSE_CHECK` (the e2e servers): an answer that departs from its declared response becomes a 500 that
 * names the route and what is wrong, so the test that made the request fails where it made it. Routes and the MCP
 * server's tools, which run the same endpoints, both answer through it.
 */
export function checkedAnswer(operation: string, declared: EndpointResponse, answer: Answer): Answer {
  // Read per answer, so a test can turn it on; off in production, where it would cost a parse of every answer.
  if (!env.API_RESPONSE_CHECK) return answer;
  const mismatches = responseMismatches(declared, answer);
  if (mismatches.length === 0) return answer;
  logger.error({ operation, status: answer.status, mismatches }, "API answer does not match its declared response");
  return json({ message: "500 Internal Server Error", response_check: { operation, status: answer.status, mismatches } }, 500);
}

/**
 * GitLab's `sudo` parameter may come in the body too. The query string and the `Sudo` header, read with the token,
 * come first; a body's `sudo` is decided by the same `actAsSudoUser`, and the endpoint's scopes and guard then apply to
 * the user it names.
 */
async function actingAsBodySudo(ctx: Ctx, request: Request, url: URL, body: Record<string, unknown>): Promise<Ctx> {
  const identifier = body.sudo;
  if (identifier === undefined || sudoIdentifier(request, url) !== null) return ctx;
  if (typeof identifier !== "string" && typeof identifier !== "number") throw new ParameterError("sudo", "is invalid");
  return { ...ctx, actor: await actAsSudoUser(ctx.db, ctx.actor, String(identifier)) };
}
