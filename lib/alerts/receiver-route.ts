import "server-only";
import { getDatabase, type Database } from "@/lib/db";
import type { Answer } from "@/lib/http/answer";
import { SenderHungUp } from "@/lib/http/body";
import { directlyDispatchable } from "@/lib/http/direct-dispatch";
import { logger } from "@/lib/log";
import { observeRequest } from "@/lib/metrics";
import { receiveHeartbeatPing, type HeartbeatEndpoint } from "./heartbeats";
import { receiveAlert, receiverRequestOf, type ReceiverAnswer, type ReceiverEndpoint, type ReceiverRequest, type ReceiverTarget } from "./receive";
import { routeProjectPath } from "@/lib/projects/route-path";

const endpointIdentifierPattern = /^[A-Za-z0-9-]+$/;

/**
 * The receiver URL's tail after `/:namespace/:project/` → which integration it names, or null for a path that is no
 * receiver URL. `.json` is optional everywhere; the `name` segment is ignored. An integration's URL followed by
 * `/v2/enqueue` is its PagerDuty events URL, and followed by `/v2/alerts` its Opsgenie Alert API URL, whose
 * follow-ups name their alert in the path and say how in `identifierType` (`query`, the URL's query).
 * `/alerts/heartbeat/:name/:endpoint_identifier` is a heartbeat's ping URL, whose key may come as `?token=`.
 */
export function parseReceiverPath(tail: string[], query: URLSearchParams = new URLSearchParams()): ReceiverEndpoint | HeartbeatEndpoint | null {
  const segments = tail.map((segment, index) => (index === tail.length - 1 ? segment.replace(/\.json$/, "") : segment));
  if (segments.length === 4 && segments[0] === "alerts" && segments[1] === "heartbeat" && endpointIdentifierPattern.test(segments[3]!)) {
    return { kind: "heartbeat", identifier: segments[3]!, queryToken: query.get("token") };
  }
  if (segments[0] === "alerts" && segments[1] === "notify") {
    if (segments.length === 2) return { kind: "legacy" };
    const identifier = segments[3];
    if (identifier === undefined || !endpointIdentifierPattern.test(identifier)) return null;
    if (segments.length === 4) return { kind: "identifier", identifier };
    if (segments[4] !== "v2") return null;
    if (segments.length === 6 && segments[5] === "enqueue") return { kind: "pagerduty-events", identifier };
    if (segments.length === 6 && segments[5] === "alerts") return { kind: "opsgenie-alerts", identifier, action: "create", alias: null };
    const action = segments[7];
    if (segments.length === 8 && segments[5] === "alerts" && (action === "acknowledge" || action === "close")) {
      // Opsgenie's default identifierType is its own alert id, which nothing here has: only an alias names an alert.
      return { kind: "opsgenie-alerts", identifier, action, alias: query.get("identifierType") === "alias" ? tail[6]! : null };
    }
  }
  if (segments.length === 3 && segments[0] === "prometheus" && segments[1] === "alerts" && segments[2] === "notify") {
    return { kind: "prometheus" };
  }
  return null;
}

/** The integration a heartbeat's ping URL names. */
export interface HeartbeatTarget {
  projectPath: string;
  endpoint: HeartbeatEndpoint;
}

/** A receiver request as either server hands it over. */
export interface ReceiverCall {
  /** `GET` is only for heartbeat pings (cron one-liners); everything else is posted. */
  method: "GET" | "POST";
  /** The integration the URL names (`parseReceiverPath`), or null for a path under the receiver's that names none. */
  target: ReceiverTarget | HeartbeatTarget | null;
  request: ReceiverRequest;
}

const methodNotAllowed: ReceiverAnswer = { status: 405, body: { message: "405 Method Not Allowed" }, headers: { Allow: "POST" } };

function isHeartbeatTarget(target: ReceiverTarget | HeartbeatTarget): target is HeartbeatTarget {
  return target.endpoint.kind === "heartbeat";
}

/**
 * The answer to a request on a receiver URL, whichever server received it; counted in the metrics. It never rejects:
 * a failure, opening the database included, is a 500 answer.
 */
export async function answerReceiverCall(database: () => Promise<Database>, call: ReceiverCall): Promise<ReceiverAnswer> {
  const startedAt = performance.now();
  const { target } = call;
  const answer = !target
    ? { status: 404, body: { message: "404 Not Found" } }
    : await database()
        .then((db) => receive(db, target, call))
        .catch((error: unknown): ReceiverAnswer => {
          // A sender that hangs up mid-body is not our failure: nothing was stored and nobody reads the answer.
          if (error instanceof SenderHungUp) {
            logger.info("alert sender closed the connection before its payload arrived");
            return { status: error.status, body: {} };
          }
          logger.error({ err: error }, "alert receiver failed");
          return { status: 500, body: { message: "500 Internal Server Error" } };
        });
  const route = target && isHeartbeatTarget(target) ? "/:namespace/:project/alerts/heartbeat" : "/:namespace/:project/alerts/notify";
  observeRequest(call.method, route, answer.status, startedAt);
  return answer;
}

/** A heartbeat's URL takes pings, by GET or POST; every other receiver URL takes alerts, posted. */
function receive(db: Database, target: ReceiverTarget | HeartbeatTarget, call: ReceiverCall): Promise<ReceiverAnswer> {
  if (isHeartbeatTarget(target)) return receiveHeartbeatPing(db, target.projectPath, target.endpoint, call.request, new Date());
  if (call.method !== "POST") return Promise.resolve(methodNotAllowed);
  return receiveAlert(db, target, call.request, new Date());
}

/** The integration a receiver URL names: its project, and the path after `/:namespace/:project/` in segments. */
export function receiverTargetOf(
  namespace: string,
  project: string,
  tail: string[],
  query?: URLSearchParams,
): ReceiverTarget | HeartbeatTarget | null {
  const endpoint = parseReceiverPath(tail, query);
  if (!endpoint) return null;
  const projectPath = routeProjectPath({ namespace, project });
  return endpoint.kind === "heartbeat" ? { projectPath, endpoint } : { projectPath, endpoint };
}

/** The headers of every receiver answer, besides those the answer adds. */
export const receiverAnswerHeaders = { "Content-Type": "application/json", "Cache-Control": "no-store" };

/**
 * The `POST` handler of a receiver URL's route file (`GET` too for heartbeat pings: `method`). `tailOf` gives back the
 * URL's path after `/:namespace/:project/` from the route's parameters, for `parseReceiverPath` to name the integration.
 */
export function receiverRoute<Params extends { namespace: string; project: string }>(tailOf: (params: Params) => string[], method: "GET" | "POST" = "POST") {
  return directlyDispatchable(async (request: Request, { params }: { params: Promise<Params> }): Promise<Answer> => {
    const resolved = await params;
    const answer = await answerReceiverCall(getDatabase, {
      method,
      target: receiverTargetOf(resolved.namespace, resolved.project, tailOf(resolved), new URL(request.url).searchParams),
      request: receiverRequestOf(request),
    });
    const body = answer.body === undefined ? "" : JSON.stringify(answer.body);
    return { status: answer.status, headers: { ...receiverAnswerHeaders, ...answer.headers }, body };
  });
}
