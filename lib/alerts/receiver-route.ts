import "server-only";
import { getDatabase } from "@/lib/db";
import { logger } from "@/lib/log";
import { observeRequest } from "@/lib/metrics";
import { receiveAlert, type ReceiverEndpoint } from "./receive";

const endpointIdentifierPattern = /^[A-Za-z0-9-]+$/;
/** nginx's status for a request its client abandoned; only metrics ever see it. */
const clientClosedRequest = 499;

/**
 * The receiver URL's tail after `/:namespace/:project/` → which integration it names, or null for a path that is no
 * receiver URL. `.json` is optional everywhere; the `name` segment is ignored.
 */
export function parseReceiverPath(tail: string[]): ReceiverEndpoint | null {
  const segments = tail.map((segment, index) => (index === tail.length - 1 ? segment.replace(/\.json$/, "") : segment));
  if (segments[0] === "alerts" && segments[1] === "notify") {
    if (segments.length === 2) return { kind: "legacy" };
    if (segments.length === 4 && endpointIdentifierPattern.test(segments[3]!)) return { kind: "identifier", identifier: segments[3]! };
  }
  if (segments.length === 3 && segments[0] === "prometheus" && segments[1] === "alerts" && segments[2] === "notify") {
    return { kind: "prometheus" };
  }
  return null;
}

/** The POST handler behind every receiver URL. */
export async function handleReceiverRequest(request: Request, namespace: string, project: string, tail: string[]): Promise<Response> {
  const startedAt = performance.now();
  const endpoint = parseReceiverPath(tail);
  const answer = endpoint
    ? await receiveAlert(await getDatabase(), { projectPath: `${namespace}/${project}`, endpoint }, request, new Date()).catch(
        (error: unknown) => {
          // A sender that hangs up mid-body is not our failure: nothing was stored and nobody reads the answer.
          if (request.signal.aborted) {
            logger.info("alert sender closed the connection before its payload arrived");
            return { status: clientClosedRequest, body: {}, headers: undefined };
          }
          logger.error({ err: error }, "alert receiver failed");
          return { status: 500, body: { message: "500 Internal Server Error" }, headers: undefined };
        },
      )
    : { status: 404, body: { message: "404 Not Found" }, headers: undefined };
  observeRequest("POST", "/:namespace/:project/alerts/notify", answer.status, startedAt);
  return new Response(JSON.stringify(answer.body), {
    status: answer.status,
    headers: { "Content-Type": "application/json", "Cache-Control": "no-store", ...answer.headers },
  });
}
