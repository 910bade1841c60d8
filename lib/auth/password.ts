import "server-only";
import { hash, verify, type Algorithm } from "@node-rs/argon2";

// Algorithm.Argon2id; the package declares it as a const enum, which isolated modules cannot read.
const argon2id = 2 as Algorithm;
// OWASP's minimum for argon2id (m = 19 MiB, t = 2, p = 1).
const argon2Options = { algorithm: argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 };

export function hashPassword(password: string): Promise<string> {
  return hash(password, argon2Options);
}

let decoyHash: Promise<string> | undefined;

/**
 * Verifies a password. With no stored hash (unknown user) it still spends the same time on a decoy,
 * so response times do not reveal which usernames exist.
 */
export async function verifyPassword(passwordHash: string | undefined, password: string): Promise<boolean> {
  if (!passwordHash) {
    decoyHash ??= hashPassword("decoy password that matches nothing");
    await verify(await decoyHash, password).catch(() => false);
    return false;
  }
  return verify(passwordHash, password).catch(() => false);
}
