import "server-only";
import { asc } from "drizzle-orm";
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from "jose";
import type { Database } from "@/lib/db";
import { oncePerDatabase } from "@/lib/db/once-per-database";
import { oauthSigningKeys } from "@/lib/db/schema";

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

/**
 * The RS256 key that signs ID tokens. The first process to need it generates it; the oldest key in the database wins
 * (the kid breaks a tie), so concurrent first starts of several replicas still agree on one key.
 */
export const getSigningKey = oncePerDatabase(loadOrCreateSigningKey);

async function loadOrCreateSigningKey(db: Database): Promise<SigningKey> {
  let [row] = await db.select().from(oauthSigningKeys).orderBy(asc(oauthSigningKeys.createdAt), asc(oauthSigningKeys.kid)).limit(1);
  if (!row) {
    const { privateKey, publicKey } = await generateKeyPair("RS256", { modulusLength: 2048, extractable: true });
    const publicJwk = await exportJWK(publicKey);
    const kid = await calculateJwkThumbprint(publicJwk);
    await db
      .insert(oauthSigningKeys)
      .values({ kid, privateJwk: await exportJWK(privateKey), publicJwk: { ...publicJwk, kid, use: "sig", alg: "RS256" } })
      .onConflictDoNothing();
    [row] = await db.select().from(oauthSigningKeys).orderBy(asc(oauthSigningKeys.createdAt), asc(oauthSigningKeys.kid)).limit(1);
  }
  if (!row) throw new Error("no OpenID Connect signing key could be stored");
  const privateKey = (await importJWK(row.privateJwk as JWK, "RS256")) as CryptoKey;
  return { kid: row.kid, privateKey, publicJwk: row.publicJwk as JWK };
}

/** `GET /oauth/discovery/keys`. */
export async function publicJwks(db: Database): Promise<{ keys: JWK[] }> {
  return { keys: [(await getSigningKey(db)).publicJwk] };
}
