import "server-only";
import { randomBytes } from "node:crypto";
import { readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { getDatabase, type Database } from "@/lib/db";
import { env } from "@/lib/env";
import { ApiError, ForbiddenError, InvalidTokenError, NotFoundError, UnauthorizedError } from "@/lib/errors";
import { logger } from "@/lib/log";
import { authorizeGitAccess, type GitOperation } from "./access";
import { runHttpBackend } from "./http-backend";
import { adoptDefaultBranch, recordPushEvents } from "./push-events";
import { parseRefUpdates } from "./ref-updates";
import { ensureRepository, listRefs, repositoryName } from "./repositories";

/** The three smart-HTTP endpoints below `/:namespace/:project.git/`. */
export type GitEndpoint = "info-refs" | "git-upload-pack" | "git-receive-pack";

const services = ["git-upload-pack", "git-receive-pack"] as const;

function plain(status: number, text: string, headers: Record<string, string> = {}): Response {
  return new Response(`${text}\n`, { status, headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store", ...headers } });
}

/** Git clients print these bodies; a 401 with a Basic challenge makes them ask for (or use stored) credentials. */
function gitErrorResponse(error: unknown): Response {
  if (error instanceof UnauthorizedError || error instanceof InvalidTokenError) {
    return plain(401, "HTTP Basic: Access denied. Use a personal access token or OAuth access token as the password.", {
      "WWW-Authenticate": 'Basic realm="GitLab"',
    });
  }
  if (error instanceof ForbiddenError) return plain(403, error.message.replace(/^403 Forbidden( - )?/, "") || "Forbidden");
  if (error instanceof NotFoundError) {
    return plain(404, "The project you were looking for could not be found or you don't have permission to view it.");
  }
  if (error instanceof ApiError) return plain(error.status, error.message);
  logger.error({ err: error }, "git request failed");
  return plain(500, "Internal server error");
}

export interface GitServeSettings {
  /** The database that decides access and records pushes. */
  database: () => Promise<Database>;
  /** The largest push accepted, in bytes of request body. */
  maxPushBytes: number;
}

function settingsFromEnvironment(): GitServeSettings {
  return { database: getDatabase, maxPushBytes: env.GIT_MAX_PUSH_SIZE_MB * 1024 * 1024 };
}

function describeSize(bytes: number): string {
  const mebibytes = bytes / (1024 * 1024);
  return Number.isInteger(mebibytes) ? `${mebibytes} MiB` : `${bytes} bytes`;
}

/**
 * `name.git` in the URL names the project `name`; the suffix is optional, as in GitLab. The framework has decoded the
 * segments already: decoding them again would read `%25E0` as a malformed `%E0`, and `pub%252Egit` as `pub.git`.
 */
export function projectReferenceFromPath(namespace: string, project: string): string {
  return `${namespace}/${project.endsWith(".git") ? project.slice(0, -4) : project}`;
}

/**
 * Serves one smart-HTTP git request: authenticates the token in HTTP Basic, checks the caller's role for pulling or
 * pushing, creates the repository on first use, runs `git http-backend`, and after a push records its push events
 * (one per updated branch or tag, or one for many alike) before the response ends. Request bodies are checked on their way to git: fetches must
 * be pkt-lines, pushes must be pkt-lines up to their pack and no larger than the maximum push size, which git is
 * also told (`receive.maxInputSize`).
 */
export async function serveGitRequest(
  request: Request,
  route: { namespace: string; project: string; endpoint: GitEndpoint },
  settings: GitServeSettings = settingsFromEnvironment(),
): Promise<Response> {
  try {
    const url = new URL(request.url);
    let service: (typeof services)[number];
    if (route.endpoint === "info-refs") {
      const requested = url.searchParams.get("service");
      if (!services.includes(requested as (typeof services)[number])) {
        return plain(403, "Only the smart HTTP protocol is supported: use a git client newer than 1.6.6.");
      }
      service = requested as (typeof services)[number];
      if (request.method !== "GET") return plain(405, "Method not allowed");
    } else {
      service = route.endpoint;
      if (request.method !== "POST") return plain(405, "Method not allowed");
    }
    const operation: GitOperation = service === "git-receive-pack" ? "push" : "pull";
    const now = new Date();
    const db = await settings.database();
    const { view, user } = await authorizeGitAccess(db, {
      projectReference: projectReferenceFromPath(route.namespace, route.project),
      operation,
      authorization: request.headers.get("authorization"),
      now,
    });
    const projectId = view.project.id;
    const repository = await ensureRepository(projectId);
    const pathInfo = `/${repositoryName(projectId)}/${route.endpoint === "info-refs" ? "info/refs" : service}`;
    const query = route.endpoint === "info-refs" ? `service=${service}` : "";

    if (route.endpoint === "info-refs") return await runHttpBackend({ request, pathInfo, query, remoteUser: user?.username ?? null });
    if (route.endpoint === "git-upload-pack") {
      return await runHttpBackend({
        request,
        pathInfo,
        query,
        remoteUser: user?.username ?? null,
        bodyRules: { service: "git-upload-pack", framing: "whole" },
      });
    }
    // Only signed-in clients reach here: authorizeGitAccess refuses anonymous pushes.
    if (!user) throw new UnauthorizedError();

    const refsBefore = await listRefs(repository);
    const updatesFile = path.join(os.tmpdir(), `push-${projectId}-${randomBytes(8).toString("hex")}`);
    return await runHttpBackend({
      request,
      pathInfo,
      query,
      remoteUser: user.username,
      extraEnv: { PUSH_UPDATES_FILE: updatesFile },
      gitConfig: { "receive.maxInputSize": String(settings.maxPushBytes) },
      bodyRules: {
        service: "git-receive-pack",
        framing: "until-flush",
        maxBytes: settings.maxPushBytes,
        limitName: `this server's maximum push size (${describeSize(settings.maxPushBytes)})`,
      },
      onFinished: async () => {
        const reported = await readFile(updatesFile, "utf8").catch(() => "");
        await rm(updatesFile, { force: true });
        const updates = parseRefUpdates(reported);
        if (updates.length === 0) return;
        await adoptDefaultBranch(db, { projectId, repository, updates }).catch((error: unknown) =>
          logger.warn({ err: error }, "could not set the default branch"),
        );
        await recordPushEvents(db, { projectId, authorId: user.id, repository, updates, refsBefore, now: new Date() });
      },
    });
  } catch (error) {
    return gitErrorResponse(error);
  }
}
