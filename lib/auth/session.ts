import "server-only";
import { getServerSession } from "next-auth";
import { redirect } from "next/navigation";
import { connection } from "next/server";
import { createContext, type Ctx } from "@/lib/context";
import { getDatabase } from "@/lib/db";
import type { UserRow } from "@/lib/db/schema";
import { findUserById } from "@/lib/users/users";
import { getAuthOptions } from "./options";
import { sessionStillValid } from "./sessions";

/**
 * The signed-in user of the browser session, re-read from the database on every request so that blocking, a password
 * change or "sign out everywhere" ends the session at once, whatever the session cookie says. Pages, server actions,
 * the OAuth pages and the API's session fallback all read the session here.
 */
export async function getSessionUser(): Promise<UserRow | null> {
  // Sessions belong to requests: this also keeps pages that read them out of build-time prerendering.
  await connection();
  const session = await getServerSession(await getAuthOptions());
  if (!session?.user?.id) return null;
  const user = await findUserById(await getDatabase(), session.user.id);
  return user && sessionStillValid(user, session.user.sessionVersion, new Date()) ? user : null;
}

/** A context for the signed-in user of a page or server action; sends anonymous visitors to sign in. */
export async function requireSessionContext(returnTo?: string): Promise<Ctx> {
  const user = await getSessionUser();
  if (!user) redirect(`/users/sign_in${returnTo ? `?callbackUrl=${encodeURIComponent(returnTo)}` : ""}`);
  return createContext(await getDatabase(), { kind: "user", user, scopes: null });
}

/** A context for whoever is visiting: the signed-in user or anonymous. */
export async function sessionContext(): Promise<Ctx> {
  const user = await getSessionUser();
  return createContext(await getDatabase(), user ? { kind: "user", user, scopes: null } : { kind: "anonymous" });
}
