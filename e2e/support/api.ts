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

/** Creates a user through the admin API, with a password and an `api` token, as a test's own fixture. */
export async function createUser(request: APIRequestContext, options: { admin?: boolean } = {}): Promise<CreatedUser> {
  const username = uniqueName("user");
  const password = `pw-${randomBytes(8).toString("hex")}`;
  const created = await request.post("/api/v4/users", {
    headers: asToken(rootToken),
    data: { username, email: `${username}@example.com`, name: `User ${username}`, password, admin: options.admin ?? false },
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
