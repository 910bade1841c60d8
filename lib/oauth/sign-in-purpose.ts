import "server-only";
import type { Ctx } from "@/lib/context";
import { findApplicationByUid } from "./applications";

/** What a person signing in is about to authorize, when they came from the OAuth flows. */
export type SignInPurpose = { kind: "application"; name: string } | { kind: "device" };

const authorizePaths = new Set(["/oauth/authorize", "/oauth/authorize/consent"]);
// Application uids are printable ASCII; anything else cannot name one and is not worth a query.
const plausibleClientId = /^[\x21-\x7e]{1,255}$/;

/**
 * Reads the sign-in page's callback path. An authorization request names its application by `client_id`, whose name
 * comes from the database, never from the URL. A device's user code is not looked up: before sign-in nobody is
 * throttled per user, and the page must not tell which codes are live.
 */
export async function signInPurpose(ctx: Pick<Ctx, "db">, callbackPath: string): Promise<SignInPurpose | null> {
  const url = new URL(callbackPath, "http://callback.invalid");
  if (url.pathname === "/oauth/device") return { kind: "device" };
  if (!authorizePaths.has(url.pathname)) return null;
  const clientId = url.searchParams.get("client_id");
  if (clientId === null || !plausibleClientId.test(clientId)) return null;
  const application = await findApplicationByUid(ctx, clientId);
  return application ? { kind: "application", name: application.name } : null;
}
