import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { Actor } from "@/lib/context";
import type { UserRow } from "@/lib/db/schema";
import { env } from "@/lib/env";
import { ForbiddenError, InsufficientScopeError, NotFoundError, UnauthorizedError } from "@/lib/errors";
import { getProjectEndpoint } from "@/lib/projects/endpoints";
import { createProject, getVisibleProject } from "@/lib/projects/projects";
import { updateProject } from "@/lib/projects/settings";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { apiFailure, createTestUser, uniqueSuffix, userContext } from "@/lib/testing/fixtures";
import { insertPersonalAccessToken } from "@/lib/users/personal-access-tokens";
import { currentUser } from "@/lib/users/users";
import type { Scope } from "./scopes";
import { apiResource, endpoint } from "./endpoint";
import { projectPath } from "./param-types";
import { json } from "./respond";
import { okWith } from "./responses";
import { writeApiScopes } from "./scopes";
import { actAsSudoUser } from "./sudo";

/** Who a request acted as, whatever its method: the API's own routing, authentication and sudo in front of it. */
const whoAmI = endpoint({ scopes: writeApiScopes, response: okWith(z.strictObject({ username: z.string() })), handle: async ({ ctx }) => json({ username: currentUser(ctx).username }) });
const probe = apiResource("/probe", { GET: { ...whoAmI, scopes: ["read_api", "api"] }, POST: whoAmI });
const projectRoute = apiResource("/projects/:id", {
  GET: getProjectEndpoint,
  PUT: endpoint({ scopes: writeApiScopes, path: projectPath, response: okWith(z.strictObject({ id: z.number() })), handle: async ({ ctx, path }) => json({ id: (await getVisibleProject(ctx, path.id)).project.id }) }),
});

describe.each(testDatabases())("sudo on $name", ({ open }) => {
  const handle = databaseForSuite(open);

  function serveFromSuiteDatabase() {
    (globalThis as unknown as { databaseHandle?: Promise<unknown> }).databaseHandle = Promise.resolve(handle);
  }

  async function tokenOf(user: UserRow, ...scopes: Scope[]): Promise<string> {
    return (await insertPersonalAccessToken(handle.db, user.id, { name: "t", scopes }, new Date())).token;
  }

  const tokenActor = (user: UserRow, scopes: string[]): Actor => ({ kind: "user", user, scopes: new Set(scopes), personalAccessTokenId: 7 });

  it("acts as the user an id or username (any case) names, with that user's full rights and the admin's token", async () => {
    const admin = await createTestUser(handle.db, { isAdmin: true });
    const target = await createTestUser(handle.db);
    for (const identifier of [String(target.id), target.username, target.username.toUpperCase()]) {
      const actor = await actAsSudoUser(handle.db, tokenActor(admin, ["api", "sudo"]), identifier);
      expect(actor).toEqual({ kind: "user", user: target, scopes: null, personalAccessTokenId: 7 });
    }
  });

  it("refuses as GitLab's sudo! does, in its order", async () => {
    const admin = await createTestUser(handle.db, { isAdmin: true });
    const user = await createTestUser(handle.db);
    const refusal = async (actor: Actor, identifier: string) => {
      const error = await apiFailure(actAsSudoUser(handle.db, actor, identifier));
      return [error.constructor, error.status, error.body()];
    };
    expect(await refusal({ kind: "anonymous" }, user.username)).toEqual([UnauthorizedError, 401, { message: "401 Unauthorized" }]);
    expect(await refusal(tokenActor(user, ["api", "sudo"]), "nobody")).toEqual([ForbiddenError, 403, { message: "403 Forbidden - Must be admin to use sudo" }]);
    expect(await refusal({ kind: "user", user: admin, scopes: null }, user.username)).toEqual([
      ForbiddenError,
      403,
      { message: "403 Forbidden - Must be authenticated using an OAuth or personal access token to use sudo" },
    ]);
    expect(await refusal(tokenActor(admin, ["api"]), user.username)).toEqual([
      InsufficientScopeError,
      403,
      { error: "insufficient_scope", error_description: "The request requires higher privileges than provided by the access token.", scope: "sudo" },
    ]);
    for (const identifier of ["nobody-at-all", "2147483647", "99999999999", "", "a\u0000b"]) {
      expect(await refusal(tokenActor(admin, ["sudo"]), identifier)).toEqual([NotFoundError, 404, { message: `404 User with ID or username '${identifier}' Not Found` }]);
    }
  });

  it("reaches every endpoint from the query string, the Sudo header or the body; counts nothing else as sudo", async () => {
    serveFromSuiteDatabase();
    const admin = await createTestUser(handle.db, { isAdmin: true });
    const target = await createTestUser(handle.db);
    // GitLab checks no endpoint scope under sudo: a token with only `sudo` reaches a write endpoint as the user.
    const token = await tokenOf(admin, "sudo");
    const call = async (method: "GET" | "POST", path: string, init: { headers?: Record<string, string>; body?: string } = {}) => {
      const response = await probe[method](
        new Request(`${env.EXTERNAL_URL}/api/v4${path}`, { method, headers: { "PRIVATE-TOKEN": token, ...init.headers }, body: init.body }),
        { params: Promise.resolve({}) },
      );
      return [response.status, await response.json()];
    };
    expect(await call("GET", `/probe?sudo=${target.username}`)).toEqual([200, { username: target.username }]);
    expect(await call("GET", "/probe", { headers: { Sudo: String(target.id) } })).toEqual([200, { username: target.username }]);
    expect(await call("POST", "/probe", { headers: { "Content-Type": "application/json" }, body: JSON.stringify({ sudo: target.id }) })).toEqual([
      200,
      { username: target.username },
    ]);
    expect(await call("POST", "/probe", { headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: `sudo=${target.username}` })).toEqual([
      200,
      { username: target.username },
    ]);
    // The query string and header come first, as they are read with the token.
    expect(await call("POST", `/probe?sudo=${target.username}`, { headers: { "Content-Type": "application/json" }, body: JSON.stringify({ sudo: "nobody-at-all" }) })).toEqual([
      200,
      { username: target.username },
    ]);
    expect(await call("POST", "/probe", { headers: { "Content-Type": "application/json" }, body: JSON.stringify({ sudo: ["x"] }) })).toEqual([400, { error: "sudo is invalid" }]);
    // Without sudo, the same token is refused the endpoint its scope does not reach.
    expect(await call("GET", "/probe")).toEqual([
      403,
      { error: "insufficient_scope", error_description: "The request requires higher privileges than provided by the access token.", scope: "read_api api" },
    ]);
  });

  it("follows a renamed project's old path as GitLab's API does: a GET is redirected to its id, anything else is 405", async () => {
    serveFromSuiteDatabase();
    const owner = await createTestUser(handle.db);
    const token = await tokenOf(owner, "api");
    const path = `moved-${uniqueSuffix()}`;
    const view = await createProject(userContext(handle.db, owner), { name: path, path });
    await updateProject(userContext(handle.db, owner), String(view.project.id), { path: `${path}-now` });
    const oldId = encodeURIComponent(`${owner.username}/${path}`);
    const call = (method: "GET" | "PUT", query = "") =>
      projectRoute[method](new Request(`${env.EXTERNAL_URL}/api/v4/projects/${oldId}${query}`, { method, headers: { "PRIVATE-TOKEN": token } }), {
        params: Promise.resolve({ id: `${owner.username}/${path}` }),
      });

    const redirected = await call("GET", "?statistics=true");
    const location = `${env.EXTERNAL_URL}/api/v4/projects/${view.project.id}?statistics=true`;
    expect([redirected.status, redirected.headers.get("location"), await redirected.text()]).toEqual([301, location, `This resource has been moved permanently to ${location}`]);
    const refused = await call("PUT");
    expect([refused.status, await refused.json()]).toEqual([405, { message: "Non GET methods are not allowed for moved projects" }]);
  });
});
