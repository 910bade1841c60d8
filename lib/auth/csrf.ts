import "server-only";
import { createHmac } from "node:crypto";
import { constantTimeEqual } from "@/lib/crypto";
import { getAuthOptions } from "./options";

const csrfLifetimeMs = 60 * 60 * 1000;

async function sign(payload: string): Promise<string> {
  const { secret } = await getAuthOptions();
  return createHmac("sha256", `csrf:${secret}`).update(payload).digest("base64url");
}

/**
 * A token for one form of ours that changes state outside server actions (the OAuth consent form): bound to the
 * signed-in user and valid for an hour. A cross-site page cannot read it, so it cannot forge the form.
 */
export async function issueCsrfToken(userId: number, purpose: string, now: Date): Promise<string> {
  const issuedAt = now.getTime().toString(36);
  return `${issuedAt}.${await sign(`${purpose}:${userId}:${issuedAt}`)}`;
}

export async function verifyCsrfToken(token: string | undefined, userId: number, purpose: string, now: Date): Promise<boolean> {
  if (!token) return false;
  const [issuedAt, signature] = token.split(".");
  if (!issuedAt || !signature) return false;
  const issuedAtMs = parseInt(issuedAt, 36);
  if (!Number.isFinite(issuedAtMs) || now.getTime() - issuedAtMs > csrfLifetimeMs || issuedAtMs > now.getTime() + 60_000) return false;
  return constantTimeEqual(signature, await sign(`${purpose}:${userId}:${issuedAt}`));
}
