import { randomBytes } from "node:crypto";
import { expect } from "vitest";
import { createContext, type Ctx } from "@/lib/context";
import type { Database } from "@/lib/db";
import type { UserRow } from "@/lib/db/schema";
import { ApiError } from "@/lib/errors";
import { insertUser } from "@/lib/users/users";

/** A short random suffix so each test's users and projects have names of their own. */
export function uniqueSuffix(): string {
  return randomBytes(4).toString("hex");
}

export const testPassword = "correct horse battery staple";

/** A user with a confirmed address, unless `confirmed: false` (then unconfirmed, and no link was ever sent). */
export async function createTestUser(
  db: Database,
  overrides: { isAdmin?: boolean; username?: string; confirmed?: boolean } = {},
): Promise<UserRow> {
  const username = overrides.username ?? `user_${uniqueSuffix()}`;
  return insertUser(
    db,
    {
      username,
      email: `${username}@example.com`,
      name: `Test ${username}`,
      password: testPassword,
      isAdmin: overrides.isAdmin ?? false,
    },
    { confirmedAt: overrides.confirmed === false ? null : new Date() },
  );
}

/** A context acting as `user` with a browser session's full rights. */
export function userContext(db: Database, user: UserRow): Ctx {
  return createContext(db, { kind: "user", user, scopes: null });
}

export function anonymousTestContext(db: Database): Ctx {
  return createContext(db, { kind: "anonymous" });
}

/** The API error a promise rejects with; fails the test when it resolves or throws anything else. */
export async function apiFailure(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => {
      throw new Error("expected a failure");
    },
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}
