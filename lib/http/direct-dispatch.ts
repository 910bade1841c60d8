import { answerResponse, type Answer } from "./answer";
import { directBodyKey, directDispatchKey, hungUpKey } from "./lane-keys.mjs";

/**
 * The mark the production server's direct lane (lib/http/direct-lane.mjs) looks for on a route handler before it
 * calls the handler itself, without the framework's routing: its value is the handler's `Answer`-returning core, which
 * the lane writes out as it is. A marked handler reads nothing from the framework's request scope (`cookies()`,
 * `headers()`, `after()`), except through a session cookie, and the lane leaves every request that carries cookies to
 * the framework. The protocol wrappers (`apiRoute`, `oauthEndpoint`, `receiverRoute`) mark what they build; so the
 * lane serves exactly the machine-facing routes, with no list of paths.
 *
 * Returns the framework's route handler for `answer`, marked so that the direct lane calls `answer` itself.
 */
export function directlyDispatchable<Context = unknown>(
  answer: (request: Request, context: Context) => Promise<Answer> | Answer,
): (request: Request, context: Context) => Promise<Response> {
  const routeHandler = async (request: Request, context: Context) => answerResponse(await answer(request, context));
  Object.defineProperty(routeHandler, directDispatchKey, { value: answer });
  return routeHandler;
}

/**
 * A request body the direct lane reads from the socket for lib/http/body.ts, the one place bodies are read: a web
 * body stream costs more than most of what the machine-facing handlers do with a small body.
 */
export interface DirectBody {
  /** The whole body, or null as soon as it passes `limit` bytes (the rest is then discarded unread). Once only. */
  read(limit: number): Promise<Buffer | null>;
}

export function directBodyOf(request: Request): DirectBody | undefined {
  return (request as unknown as Record<symbol, DirectBody | undefined>)[directBodyKey];
}

/** Whether the sender of `request` hung up before its whole body arrived, whichever server received it. */
export function senderHungUp(request: Request): boolean {
  return request.signal.aborted || (request as unknown as Record<symbol, unknown>)[hungUpKey] === true;
}
