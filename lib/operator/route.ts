import "server-only";
import { createContext } from "@/lib/context";
import { constantTimeEqual } from "@/lib/crypto";
import { getDatabase } from "@/lib/db";
import { BadRequestError } from "@/lib/errors";
import { renderError, requestIdOf } from "@/lib/api/handler";
import { json } from "@/lib/api/respond";
import { answerResponse } from "@/lib/http/answer";
import { readBodyText } from "@/lib/http/body";
import { operatorSecretVariable, operatorSocketHeader } from "@/lib/http/lane-keys.mjs";
import { logger } from "@/lib/log";
import { parseOperatorCommand, runOperatorCommand } from "./commands";

const maxCommandBytes = 16 * 1024;

/**
 * Whether a request came through the operator socket: only the production server's socket adds this process's secret
 * to its requests (server.mjs), and its TCP listener drops the header. Anywhere else (`next dev`, no secret) nothing
 * does.
 */
export function cameThroughOperatorSocket(request: Request): boolean {
  const secret = process.env[operatorSecretVariable];
  const presented = request.headers.get(operatorSocketHeader);
  return Boolean(secret) && presented !== null && constantTimeEqual(presented, secret!);
}

/**
 * `POST /-/operator/<command>` with the command's JSON arguments, from the operator socket only (anyone else: 404, as
 * for a route that does not exist). Answers `{"message": …, "password"?: …}` or the REST API's error body. Every
 * command is logged, never a password.
 */
export async function runOperatorRequest(request: Request, context: { params: Promise<{ command: string }> }): Promise<Response> {
  if (!cameThroughOperatorSocket(request)) return new Response("404 Not Found", { status: 404, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  const requestId = requestIdOf(request);
  const { command } = await context.params;
  try {
    const text = await readBodyText(request, maxCommandBytes, () => new BadRequestError(`400 Bad request - the command is larger than ${maxCommandBytes} bytes`));
    let args: unknown;
    try {
      args = text === "" ? {} : JSON.parse(text);
    } catch {
      throw new BadRequestError("400 Bad request - the command's arguments are not JSON");
    }
    const parsed = parseOperatorCommand({ ...(typeof args === "object" && args !== null ? args : {}), command });
    const ctx = createContext(await getDatabase(), { kind: "system", job: "operator command line" });
    const outcome = await runOperatorCommand(ctx, parsed);
    logger.info({ operator: { command, user: "user" in parsed ? parsed.user : parsed.username } }, "operator command run");
    return answerResponse(json(outcome));
  } catch (error) {
    return answerResponse(renderError(error, requestId, `/-/operator/${command}`));
  }
}
