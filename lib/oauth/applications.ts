import "server-only";
import { randomBytes } from "node:crypto";
import { and, asc, desc, eq, isNull, ne, sql } from "drizzle-orm";
import type { PageRequest } from "@/lib/api/pagination";
import { actingUser, type Ctx } from "@/lib/context";
import { sha256Hex } from "@/lib/crypto";
import { keyedListPage, preparedQuery, rowsById, type ListPage } from "@/lib/db";
import { fuzzySearch } from "@/lib/db/like";
import { oauthAccessTokens, oauthApplications, oauthConsents, oauthGrants, type OAuthApplicationRow } from "@/lib/db/schema";
import { ForbiddenError, NotFoundError, UnauthorizedError, ValidationError } from "@/lib/errors";
import { isKnownScope } from "@/lib/api/scopes";
import { requireAdmin } from "@/lib/users/users";
import { forgetTokenChecks, tokenCheck } from "@/lib/token-checks/checks";
import { maxNameLength, requiredTextProblem } from "@/lib/text-rules";

export const clientSecretPrefix = "gloas-";

export interface NewApplication {
  name: string;
  /** One URI per line (or separated by whitespace), as the registration form and GitLab's API take them. */
  redirectUri: string;
  scopes: string[];
  confidential?: boolean;
}

export interface ApplicationWithSecret {
  application: OAuthApplicationRow;
  /** The client secret in clear: returned on creation and renewal only. */
  secret: string;
}

const forbiddenSchemes = new Set(["javascript:", "data:", "vbscript:"]);

/** GitLab's (Doorkeeper's) redirect URI rules; returns the problem with one URI, or undefined. */
export function redirectUriProblem(uri: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(uri);
  } catch {
    return "must be an absolute URI.";
  }
  if (forbiddenSchemes.has(parsed.protocol)) return "is forbidden by the server.";
  if (uri.includes("#")) return "cannot contain a fragment.";
  if ((parsed.protocol === "http:" || parsed.protocol === "https:") && parsed.hostname === "") return "must be an absolute URI.";
  return undefined;
}

/**
 * Schemes a browser hands to something other than an application: a client that registered itself (nobody vouches for
 * it) may not send people there, on top of GitLab's own refusals. Private-use schemes (`cursor://`, `com.example.app:`)
 * stay allowed, as GitLab allows them: native MCP clients use them (RFC 8252 §7.1).
 */
const schemesRefusedForSelfRegistered = new Set(["file:", "blob:", "filesystem:", "about:", "mailto:", "tel:", "sms:", "ftp:", "ws:", "wss:"]);

/** The problem with a redirect URI a client registered for itself (dynamic registration, metadata documents). */
export function selfRegisteredRedirectUriProblem(uri: string): string | undefined {
  const problem = redirectUriProblem(uri);
  if (problem) return problem;
  if (uri.length > 2000) return "is too long.";
  if (schemesRefusedForSelfRegistered.has(new URL(uri).protocol)) return "is forbidden by the server.";
  return undefined;
}

/** What marks an application that registered itself, in its name, as GitLab names dynamic applications. */
export const unverifiedApplicationPrefix = "[Unverified Dynamic Application] ";

function splitRedirectUris(value: string): string[] {
  return [...new Set(value.split(/\s+/).filter((uri) => uri !== ""))];
}

function validateApplication(input: NewApplication): string[] {
  const errors: Record<string, string[]> = {};
  const nameIssue = requiredTextProblem(input.name, maxNameLength);
  if (nameIssue) errors.name = [nameIssue];
  const redirectUris = splitRedirectUris(input.redirectUri);
  if (redirectUris.length === 0) errors.redirect_uri = ["can't be blank"];
  const uriProblems = redirectUris.map(redirectUriProblem).filter((problem): problem is string => problem !== undefined);
  if (uriProblems.length > 0) errors.redirect_uri = [...new Set(uriProblems)];
  if (input.scopes.length === 0) errors.scopes = ["can't be blank"];
  else if (!input.scopes.every(isKnownScope)) errors.scopes = ["doesn't match those configured on the server."];
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return redirectUris;
}

function newClientSecret(): string {
  return clientSecretPrefix + randomBytes(32).toString("hex");
}

async function insertApplication(ctx: Ctx, input: NewApplication, ownerId: number | null): Promise<ApplicationWithSecret> {
  const redirectUris = validateApplication(input);
  const secret = newClientSecret();
  const [application] = await ctx.db
    .insert(oauthApplications)
    .values({
      uid: randomBytes(32).toString("hex"),
      name: input.name.trim(),
      secretDigest: sha256Hex(secret),
      redirectUris,
      scopes: [...new Set(input.scopes)],
      confidential: input.confidential ?? true,
      ownerId,
    })
    .returning();
  if (!application) throw new Error("insert into oauth_applications returned no row");
  return { application, secret };
}

/** `POST /api/v4/applications`: an instance-wide application, owned by nobody. */
export async function createApplicationAsAdmin(ctx: Ctx, input: NewApplication): Promise<ApplicationWithSecret> {
  requireAdmin(ctx);
  return insertApplication(ctx, input, null);
}

/** A signed-in user registers an application of their own (`/profile/applications`). */
export async function createOwnApplication(ctx: Ctx, input: NewApplication): Promise<ApplicationWithSecret> {
  const user = actingUser(ctx);
  if (!user) throw new UnauthorizedError();
  return insertApplication(ctx, input, user.id);
}

/** `GET /applications` (admin): every application, oldest first, a page at a time. */
export async function listAllApplications(ctx: Ctx, page: PageRequest): Promise<ListPage<OAuthApplicationRow>> {
  requireAdmin(ctx);
  return keyedListPage(ctx.db, page, rowsById(ctx.db, oauthApplications, undefined));
}

/**
 * The admin area's Applications page: newest first, since self-registered clients keep arriving and are what an admin
 * comes to review; `unverifiedOnly` keeps those no admin trusted yet, `search` those whose name or client ID contains
 * it (GitLab's fuzzy search).
 */
export async function listApplicationsForAdminArea(
  ctx: Ctx,
  filter: { unverifiedOnly: boolean; search?: string },
  page: PageRequest,
): Promise<ListPage<OAuthApplicationRow>> {
  requireAdmin(ctx);
  const where = and(
    filter.unverifiedOnly ? and(ne(oauthApplications.registration, "manual"), eq(oauthApplications.trusted, false)) : undefined,
    filter.search ? fuzzySearch([oauthApplications.name, oauthApplications.uid], filter.search) : undefined,
  );
  return keyedListPage(ctx.db, page, rowsById(ctx.db, oauthApplications, where, true));
}

/** The applications the caller registered (`/profile/applications`). */
export async function listOwnApplications(ctx: Ctx): Promise<OAuthApplicationRow[]> {
  const user = actingUser(ctx);
  if (!user) throw new UnauthorizedError();
  return ctx.db.select().from(oauthApplications).where(eq(oauthApplications.ownerId, user.id)).orderBy(asc(oauthApplications.id));
}

/** An application the caller may manage: its owner, or an admin. Others get 404, not a hint that it exists. */
export async function getManageableApplication(ctx: Ctx, id: number): Promise<OAuthApplicationRow> {
  const user = actingUser(ctx);
  if (!user) throw new UnauthorizedError();
  const [application] = await ctx.db.select().from(oauthApplications).where(eq(oauthApplications.id, id));
  if (!application || (!user.isAdmin && application.ownerId !== user.id)) throw new NotFoundError("Application");
  return application;
}

/** Deletes an application; its grants and tokens go with it (foreign keys cascade). */
export async function deleteApplication(ctx: Ctx, id: number): Promise<void> {
  const application = await getManageableApplication(ctx, id);
  await ctx.db.delete(oauthApplications).where(eq(oauthApplications.id, application.id));
  forgetTokenChecks(ctx.db, `application:${application.id}`);
}

/** `DELETE /api/v4/applications/:id` (admin). */
export async function deleteApplicationAsAdmin(ctx: Ctx, id: number): Promise<void> {
  requireAdmin(ctx);
  await deleteApplication(ctx, id);
}

/** `POST /api/v4/applications/:id/renew-secret` (admin). */
export async function renewApplicationSecretAsAdmin(ctx: Ctx, id: number): Promise<ApplicationWithSecret> {
  requireAdmin(ctx);
  return renewApplicationSecret(ctx, id);
}

/** Replaces the client secret; the old one stops working at once. */
export async function renewApplicationSecret(ctx: Ctx, id: number): Promise<ApplicationWithSecret> {
  const application = await getManageableApplication(ctx, id);
  const secret = newClientSecret();
  const [renewed] = await ctx.db
    .update(oauthApplications)
    .set({ secretDigest: sha256Hex(secret) })
    .where(eq(oauthApplications.id, application.id))
    .returning();
  if (!renewed) throw new NotFoundError("Application");
  forgetTokenChecks(ctx.db, `application:${application.id}`);
  return { application: renewed, secret };
}

/** Admin-only switches: `trusted` skips the consent screen; `implicit_grant_enabled` allows the deprecated flow. */
export async function updateApplicationSettings(
  ctx: Ctx,
  id: number,
  settings: { trusted?: boolean; implicitGrantEnabled?: boolean },
): Promise<OAuthApplicationRow> {
  requireAdmin(ctx);
  const application = await getManageableApplication(ctx, id);
  const [updated] = await ctx.db
    .update(oauthApplications)
    .set({
      trusted: settings.trusted ?? application.trusted,
      implicitGrantEnabled: settings.implicitGrantEnabled ?? application.implicitGrantEnabled,
    })
    .where(eq(oauthApplications.id, application.id))
    .returning();
  if (!updated) throw new NotFoundError("Application");
  forgetTokenChecks(ctx.db, `application:${application.id}`);
  return updated;
}

const applicationByUid = preparedQuery((db) =>
  db
    .select()
    .from(oauthApplications)
    .where(eq(oauthApplications.uid, sql.placeholder("uid")))
    .prepare("oauth_application_by_uid"),
);

/**
 * A registered application by its client_id, usually from this process's cache of token checks: every request of the
 * OAuth flows names its client, the authorization request twice (the proxy checks it before the page does), and any
 * change to the application's row drops the cached one on every replica.
 */
export async function findApplicationByUid(ctx: Pick<Ctx, "db">, uid: string): Promise<OAuthApplicationRow | undefined> {
  const check = await tokenCheck(ctx.db, `client_id:${uid}`, "client", async () => {
    const [application] = await applicationByUid(ctx.db).execute({ uid });
    return application && { kind: "client" as const, application };
  });
  return check?.application;
}

export interface AuthorizedApplication {
  application: Pick<OAuthApplicationRow, "id" | "name" | "uid">;
  scopes: string[];
  lastAuthorizedAt: Date;
}

/** Applications holding live tokens from the caller: what `/profile/applications` lists with Revoke. */
export async function listAuthorizedApplications(ctx: Ctx): Promise<AuthorizedApplication[]> {
  const user = actingUser(ctx);
  if (!user) throw new UnauthorizedError();
  const grants = await ctx.db
    .select({ application: oauthApplications, scopes: oauthGrants.scopes, createdAt: oauthGrants.createdAt })
    .from(oauthGrants)
    .innerJoin(oauthApplications, eq(oauthApplications.id, oauthGrants.applicationId))
    .where(
      and(
        eq(oauthGrants.userId, user.id),
        isNull(oauthGrants.revokedAt),
        // Authorized means tokens were issued and not all revoked (a code never exchanged authorizes nothing).
        sql`exists (select 1 from ${oauthAccessTokens} where ${oauthAccessTokens.grantId} = ${oauthGrants.id} and ${oauthAccessTokens.revokedAt} is null)`,
      ),
    )
    .orderBy(desc(oauthGrants.createdAt));
  const byApplication = new Map<number, AuthorizedApplication>();
  for (const grant of grants) {
    const existing = byApplication.get(grant.application.id);
    if (existing) existing.scopes = [...new Set([...existing.scopes, ...grant.scopes])];
    else {
      const { id, name, uid } = grant.application;
      byApplication.set(id, { application: { id, name, uid }, scopes: grant.scopes, lastAuthorizedAt: grant.createdAt });
    }
  }
  return [...byApplication.values()];
}

/** Revokes every grant and token the caller gave an application (the consent is forgotten too). */
export async function revokeApplicationAuthorization(ctx: Ctx, applicationId: number): Promise<void> {
  const user = actingUser(ctx);
  if (!user) throw new UnauthorizedError();
  if (ctx.actor.kind === "user" && ctx.actor.scopes !== null) throw new ForbiddenError();
  await ctx.db.transaction(async (tx) => {
    await tx
      .update(oauthGrants)
      .set({ revokedAt: ctx.now })
      .where(and(eq(oauthGrants.userId, user.id), eq(oauthGrants.applicationId, applicationId), isNull(oauthGrants.revokedAt)));
    await tx
      .update(oauthAccessTokens)
      .set({ revokedAt: ctx.now })
      .where(
        and(eq(oauthAccessTokens.userId, user.id), eq(oauthAccessTokens.applicationId, applicationId), isNull(oauthAccessTokens.revokedAt)),
      );
    await tx.delete(oauthConsents).where(and(eq(oauthConsents.userId, user.id), eq(oauthConsents.applicationId, applicationId)));
  });
  forgetTokenChecks(ctx.db, `user:${user.id}`);
}
