import "server-only";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Database } from "@/lib/db";
import { usernameProblem } from "@/lib/users/username-rules";
import { maxPayloadBytes } from "./integrations";
import { answerReceiverCall, receiverAnswerHeaders, receiverTargetOf } from "./receiver-route";
import { declaresOversizedBody, type ReceiverRequest } from "./receive";

/** A header every answer of the server carries (next.config.mjs `headers()`), in the framework's shape. */
export interface CommonHeader {
  key: string;
  value: string;
}

/**
 * Takes a request off the production server before the framework routes it, and answers it with the server's common
 * headers: true when it did. Only requests the framework would give the receiver's route handlers are taken, and
 * they get the same answers.
 */
export type FrontDoor = (request: IncomingMessage, response: ServerResponse, commonHeaders: readonly CommonHeader[]) => boolean;

/**
 * Where the production server (server.mjs) finds the front door. The server cannot import the application's modules
 * (they exist only inside the framework's build), so instrumentation.ts leaves it here when the application starts.
 */
const frontDoorKey = Symbol.for("gitlab-compatible.front-door");

export function installFrontDoor(frontDoor: FrontDoor): void {
  (globalThis as Record<symbol, unknown>)[frontDoorKey] = frontDoor;
}

/** Path segments the framework passes on unchanged: no percent-encoding to decode, nothing to normalize. */
const plainSegment = /^[A-Za-z0-9_.-]+$/;

/**
 * The receiver without the framework's routing of each request, which costs more server CPU than receiving the alert
 * (README, Benchmarks). It takes `POST`s to exactly the receiver URLs that the route handlers in
 * app/[namespace]/[project]/ answer, and answers them with the same verb; anything else, unusual paths included, it
 * leaves to the framework.
 */
export function receiverFrontDoor(database: () => Promise<Database>): FrontDoor {
  return (request, response, commonHeaders) => {
    if (request.method !== "POST" || !request.url) return false;
    const queryStart = request.url.indexOf("?");
    const [empty, namespace, project, ...tail] = (queryStart < 0 ? request.url : request.url.slice(0, queryStart)).split("/");
    if (empty !== "" || !namespace || !project || ![namespace, project, ...tail].every((segment) => plainSegment.test(segment))) return false;
    // Reserved names are the framework's own top-level routes (`/api`, `/oauth`, …), never a namespace.
    const target = usernameProblem(namespace) ? null : receiverTargetOf(namespace, project, tail);
    if (!target) return false;

    const call = { target, request: nodeReceiverRequest(request), aborted: () => request.readableAborted };
    void answerReceiverCall(database, call).then((answer) => {
      const body = JSON.stringify(answer.body);
      for (const { key, value } of commonHeaders) response.setHeader(key, value);
      // A body left unread (it was too large) is not drained over a connection the sender may reuse.
      const close = request.readableEnded ? {} : { Connection: "close" };
      response.writeHead(answer.status, { ...receiverAnswerHeaders, ...answer.headers, ...close, "Content-Length": Buffer.byteLength(body) });
      response.end(body);
    });
    return true;
  };
}

/** A Node.js request as the receiver reads it: the body is collected up to the limit and no further. */
function nodeReceiverRequest(request: IncomingMessage): ReceiverRequest {
  return {
    authorization: request.headers.authorization ?? null,
    readBody: () => {
      if (declaresOversizedBody(request.headers["content-length"])) return Promise.resolve(null);
      return new Promise((resolve, reject) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const onData = (chunk: Buffer) => {
          size += chunk.byteLength;
          if (size <= maxPayloadBytes) return void chunks.push(chunk);
          // The rest still flows, unread, so the sender can finish and read the 413.
          request.off("data", onData).off("end", onEnd).off("close", onClose);
          resolve(null);
        };
        const onEnd = () => resolve(Buffer.concat(chunks).toString("utf8"));
        const onClose = () => reject(new Error("the alert sender closed the connection mid-body"));
        request.on("data", onData).once("end", onEnd).once("close", onClose);
        // A sender hanging up makes the request emit an error, also after an oversized body was given up on.
        request.on("error", () => {});
      });
    },
  };
}
