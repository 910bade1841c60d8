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

/** GitLab's `work_information`: "job title at organization", or whichever of the two is set. */
function workInformation(user: Pick<UserRow, "jobTitle" | "organization">): string | null {
  if (user.jobTitle && user.organization) return `${user.jobTitle} at ${user.organization}`;
  return user.jobTitle || user.organization || null;
}

/**
 * A user as `GET /users/:id` shows it: GitLab's User entity (the profile; fields this service does not keep are empty
 * as on a fresh GitLab account). The account owner and admins also see GitLab's UserPublic fields: when the address
 * was confirmed, the email, the admin flag, 2FA and whether the user is external.
 */
export function serializeUser(user: UserRow, { includePrivate }: { includePrivate: boolean }) {
  const base = {
    ...serializeUserBasic(user),
    created_at: user.createdAt.toISOString(),
    bio: user.bio ?? "",
    location: user.location ?? "",
    public_email: null,
    skype: "",
    linkedin: "",
    twitter: "",
    website_url: user.websiteUrl ?? "",
    organization: user.organization ?? "",
    job_title: user.jobTitle ?? "",
    // GitLab's bots are its automation users; the ghost user, which only holds deleted users' work, is not one.
    bot: user.userType === "alert_bot",
    work_information: workInformation(user),
    followers: 0,
    following: 0,
  };
  if (!includePrivate) return base;
  return {
    ...base,
    last_sign_in_at: user.lastSignInAt?.toISOString() ?? null,
    confirmed_at: user.confirmedAt?.toISOString() ?? null,
    email: user.email,
    is_admin: user.isAdmin,
    can_create_group: false,
    can_create_project: true,
    two_factor_enabled: user.otpEnabledAt !== null,
    external: user.external,
    private_profile: false,
    commit_email: user.email,
  };
}
