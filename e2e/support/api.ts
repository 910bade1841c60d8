import { expect, type APIRequestContext, type APIResponse } from "@playwright/test";
import { randomBytes } from "node:crypto";

import { rootToken } from "./constants";

export { rootPassword, rootToken } from "./constants";

export function uniqueName(prefix: string): string {
  return `${prefix}_${randomBytes(4).toString("hex")}`;
}

export function asToken(token: string) {
  return { "PRIVATE-TOKEN": token };
}

export async function expectJson(response: APIResponse, status: number, body: unknown): Promise<void> {
  expect(response.status(), await response.text()).toBe(status);
  expect(response.headers()["content-type"]).toBe("application/json");
  expect(await response.json()).toEqual(body);
}

export interface CreatedUser {
  id: number;
  username: string;
  email: string;
  password: string;
  /** A personal access token with scope `api`. */
  token: string;
}

/**
 * Creates a user through the admin API, with a password and an `api` token, as a test's own fixture. Its address is
 * confirmed (`skip_confirmation`, as GitLab clients create users) unless `confirmed: false`.
 */
export async function createUser(request: APIRequestContext, options: { admin?: boolean; confirmed?: boolean } = {}): Promise<CreatedUser> {
  const username = uniqueName("user");
  const password = `pw-${randomBytes(8).toString("hex")}`;
  const created = await request.post("/api/v4/users", {
    headers: asToken(rootToken),
    data: {
      username,
      email: `${username}@example.com`,
      name: `User ${username}`,
      password,
      admin: options.admin ?? false,
      skip_confirmation: options.confirmed ?? true,
    },
  });
  expect(created.status(), await created.text()).toBe(201);
  const user = (await created.json()) as { id: number; email: string };
  const tokenResponse = await request.post(`/api/v4/users/${user.id}/personal_access_tokens`, {
    headers: asToken(rootToken),
    data: { name: "e2e", scopes: ["api"] },
  });
  expect(tokenResponse.status()).toBe(201);
  const { token } = (await tokenResponse.json()) as { token: string };
  return { id: user.id, username, email: user.email, password, token };
}

/** An ISO 8601 UTC timestamp with milliseconds, as every `created_at` is rendered. */
export const isoTimestamp = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

/** Issues a personal access token for `userId` through the admin API. */
export async function createToken(
  request: APIRequestContext,
  userId: number,
  scopes: string[],
  extra: Record<string, unknown> = {},
): Promise<{ id: number; token: string }> {
  const response = await request.post(`/api/v4/users/${userId}/personal_access_tokens`, {
    headers: asToken(rootToken),
    data: { name: uniqueName("token"), scopes, ...extra },
  });
  expect(response.status(), await response.text()).toBe(201);
  return (await response.json()) as { id: number; token: string };
}

export interface CreatedProject {
  id: number;
  path: string;
  path_with_namespace: string;
}

/** Creates a project as the owner of `token`. */
export async function createProject(
  request: APIRequestContext,
  token: string,
  data: Record<string, unknown> = {},
): Promise<CreatedProject> {
  const response = await request.post("/api/v4/projects", { headers: asToken(token), data: { name: uniqueName("Project"), ...data } });
  expect(response.status(), await response.text()).toBe(201);
  return (await response.json()) as CreatedProject;
}

/** Adds `userId` to a project with `accessLevel` (and any other member field, e.g. `expires_at`), as the holder of `token`. */
export async function addMember(
  request: APIRequestContext,
  token: string,
  projectId: number,
  userId: number,
  accessLevel: number,
  extra: Record<string, unknown> = {},
): Promise<void> {
  const response = await request.post(`/api/v4/projects/${projectId}/members`, {
    headers: asToken(token),
    data: { user_id: userId, access_level: accessLevel, ...extra },
  });
  expect(response.status(), await response.text()).toBe(201);
}

/** The UTC calendar day `offsetDays` from today, `YYYY-MM-DD`, as dates travel in the API. */
export function utcDay(offsetDays = 0): string {
  return new Date(Date.now() + offsetDays * 24 * 60 * 60 * 1000).toISOString().slice(0, 10);
}

/**
 * GitLab's User entity as `GET /users/:id` shows it to others, for an account with nothing in its profile (as
 * `createUser` makes them): the fields this service does not keep are empty, as on a fresh GitLab account.
 */
export function publicUserEntity(baseURL: string | undefined, user: { id: unknown; username: string; name?: string }) {
  return {
    id: user.id,
    username: user.username,
    name: user.name ?? `User ${user.username}`,
    state: "active",
    avatar_url: typeof user.id === "number" ? `${baseURL}/-/avatars/${user.id}` : expect.stringMatching(new RegExp(`^${baseURL}/-/avatars/\\d+$`)),
    web_url: `${baseURL}/${user.username}`,
    created_at: isoTimestamp,
    bio: "",
    location: "",
    public_email: null,
    skype: "",
    linkedin: "",
    twitter: "",
    website_url: "",
    organization: "",
    job_title: "",
    bot: false,
    work_information: null,
    followers: 0,
    following: 0,
  };
}

/**
 * The same user as they and admins see it: GitLab's private fields too. `lastSignInAt` is null for accounts that only
 * ever used tokens; pass what the answer says for accounts other tests may sign in with.
 */
export function privateUserEntity(
  baseURL: string | undefined,
  user: { id: unknown; username: string; email: string; name?: string },
  { isAdmin = false, lastSignInAt = null }: { isAdmin?: boolean; lastSignInAt?: unknown } = {},
) {
  return {
    ...publicUserEntity(baseURL, user),
    last_sign_in_at: lastSignInAt,
    confirmed_at: isoTimestamp,
    email: user.email,
    is_admin: isAdmin,
    can_create_group: false,
    can_create_project: true,
    two_factor_enabled: false,
    external: false,
    private_profile: false,
    commit_email: user.email,
  };
}

/** A new user's project with another new user as a member at `accessLevel`. */
export async function createProjectWithMember(
  request: APIRequestContext,
  accessLevel: number,
): Promise<{ owner: CreatedUser; member: CreatedUser; project: CreatedProject }> {
  const owner = await createUser(request);
  const member = await createUser(request);
  const project = await createProject(request, owner.token);
  await addMember(request, owner.token, project.id, member.id, accessLevel);
  return { owner, member, project };
}

/**
 * Turns on the instance setting "Allow requests to the local network from webhooks and integrations" as root, as an
 * admin does for hooks that deliver inside their network: the suites' receivers listen on 127.0.0.1.
 */
export async function allowLocalRequestsFromWebHooks(request: APIRequestContext): Promise<void> {
  const saved = await request.put("/api/v4/application/settings", {
    headers: asToken(rootToken),
    data: { allow_local_requests_from_web_hooks_and_services: true },
  });
  expect(saved.status(), await saved.text()).toBe(200);
}
