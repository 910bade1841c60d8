import "server-only";
import { sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import { entity, isoDateTime } from "@/lib/api/entities";
import { env } from "@/lib/env";
import { users, userStates, type UserRow } from "@/lib/db/schema";

export function userWebUrl(user: Pick<UserRow, "username">): string {
  return `${env.EXTERNAL_URL}/${encodeURIComponent(user.username)}`;
}

export function userAvatarUrl(user: Pick<UserRow, "id">): string {
  return `${env.EXTERNAL_URL}/-/avatars/${user.id}`;
}

/** The columns a user's appearance inside other resources needs. */
export type UserSummary = Pick<UserRow, "id" | "username" | "name" | "state">;

const userBasicShape = {
  id: z.number().int(),
  username: z.string(),
  name: z.string(),
  state: z.enum(userStates),
  avatar_url: z.string(),
  web_url: z.string(),
};

export const userBasicEntity = entity("UserBasic", "How a user appears inside other resources (authors, assignees, members)", z.strictObject(userBasicShape));

/** GitLab's UserBasic: how a user appears inside other resources (event authors, members). */
export function serializeUserBasic(user: UserSummary): z.infer<typeof userBasicEntity> {
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

const userPublicShape = {
  ...userBasicShape,
  created_at: isoDateTime,
  bio: z.string(),
  location: z.string(),
  public_email: z.string().nullable(),
  skype: z.string(),
  linkedin: z.string(),
  twitter: z.string(),
  website_url: z.string(),
  organization: z.string(),
  job_title: z.string(),
  bot: z.boolean(),
  work_information: z.string().nullable(),
  followers: z.number().int(),
  following: z.number().int(),
};

const userPrivateShape = {
  ...userPublicShape,
  last_sign_in_at: isoDateTime.nullable(),
  confirmed_at: isoDateTime.nullable(),
  email: z.string(),
  is_admin: z.boolean(),
  can_create_group: z.boolean(),
  can_create_project: z.boolean(),
  two_factor_enabled: z.boolean(),
  external: z.boolean(),
  private_profile: z.boolean(),
  commit_email: z.string(),
};

/** The account owner's and admins' view of a user (`GET /user`, and what admins create and change). */
export const userWithPrivateFieldsEntity = entity("UserWithPrivateFields", "A user as the account owner and admins see it", z.strictObject(userPrivateShape));

/** A user as others see it, or as the owner and admins do. */
export const userEntity = entity(
  "User",
  "A user's profile; the account owner and admins also see its private fields",
  z.union([z.strictObject(userPublicShape), userWithPrivateFieldsEntity]),
);

/**
 * A user as `GET /users/:id` shows it: GitLab's User entity (the profile; fields this service does not keep are empty
 * as on a fresh GitLab account). The account owner and admins also see GitLab's UserPublic fields: when the address
 * was confirmed, the email, the admin flag, 2FA and whether the user is external.
 */
export function serializeUser(user: UserRow, { includePrivate }: { includePrivate: true }): z.infer<typeof userWithPrivateFieldsEntity>;
export function serializeUser(user: UserRow, { includePrivate }: { includePrivate: boolean }): z.infer<typeof userEntity>;
export function serializeUser(user: UserRow, { includePrivate }: { includePrivate: boolean }): z.infer<typeof userEntity> {
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
