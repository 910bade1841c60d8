import "server-only";
import { sql, type SQL } from "drizzle-orm";
import { env } from "@/lib/env";
import { users, type UserRow } from "@/lib/db/schema";

export function userWebUrl(user: Pick<UserRow, "username">): string {
  return `${env.EXTERNAL_URL}/${encodeURIComponent(user.username)}`;
}

export function userAvatarUrl(user: Pick<UserRow, "id">): string {
  return `${env.EXTERNAL_URL}/-/avatars/${user.id}`;
}

/** The columns a user's appearance inside other resources needs. */
export type UserSummary = Pick<UserRow, "id" | "username" | "name" | "state">;

/** GitLab's UserBasic: how a user appears inside other resources (event authors, members). */
export function serializeUserBasic(user: UserSummary) {
  return {
    id: user.id,
    username: user.username,
    name: user.name,
    state: user.state,
    avatar_url: userAvatarUrl(user),
    web_url: userWebUrl(user),
  };
}

/** The same UserBasic as SQL over `users`, key by key, for lists that PostgreSQL renders as JSON (event pages). */
export function userBasicSqlFields(): [key: string, value: SQL][] {
  const externalUrl = sql.raw(`'${env.EXTERNAL_URL.replaceAll("'", "''")}'::text`);
  return [
    ["id", sql`${users.id}`],
    ["username", sql`${users.username}`],
    ["name", sql`${users.name}`],
    ["state", sql`${users.state}`],
    ["avatar_url", sql`${externalUrl} || '/-/avatars/' || ${users.id}`],
    // Usernames need no URL escaping: letters, digits, `_`, `-` and `.`.
    ["web_url", sql`${externalUrl} || '/' || ${users.username}`],
  ];
}

/** A user as `GET /users/:id` shows it; the account owner and admins also see email, admin flag and 2FA state. */
export function serializeUser(user: UserRow, { includePrivate }: { includePrivate: boolean }) {
  const base = { ...serializeUserBasic(user), created_at: user.createdAt.toISOString() };
  if (!includePrivate) return base;
  return { ...base, email: user.email, is_admin: user.isAdmin, two_factor_enabled: user.otpEnabledAt !== null };
}
