import "server-only";
import { randomBytes } from "node:crypto";
import type { Database } from "@/lib/db";
import { env } from "@/lib/env";
import { violatedUniqueConstraint } from "@/lib/db/errors";
import { logger } from "@/lib/log";
import { findPersonalAccessTokenByValue, insertPersonalAccessToken } from "./personal-access-tokens";
import { findUserByUsername, insertUser } from "./users";

const rootUsername = "root";

/**
 * Ensures the administrator (`root`) exists. With INITIAL_ROOT_PASSWORD the password is the operator's;
 * without it a random one is generated and printed this once. INITIAL_ROOT_TOKEN installs a token for root.
 */
export async function bootstrapRoot(db: Database, now: Date): Promise<void> {
  let root = await findUserByUsername(db, rootUsername);
  if (!root) {
    const password = env.INITIAL_ROOT_PASSWORD ?? randomBytes(18).toString("base64url");
    try {
      // The operator's own account: nobody could open a link mailed to its placeholder address.
      root = await insertUser(
        db,
        { username: rootUsername, email: "admin@example.com", name: "Administrator", password, isAdmin: true },
        { confirmedAt: now },
      );
    } catch (error) {
      // Another replica created root at the same moment.
      root = await findUserByUsername(db, rootUsername);
      if (!root) throw error;
    }
    if (!env.INITIAL_ROOT_PASSWORD) {
      // Printed on purpose and only once, straight to the terminal rather than the structured log.
      console.log(
        `\nAdministrator account created: username "root", password "${password}" (shown once; change it after signing in, at ${env.EXTERNAL_URL}/profile/password/edit).\n`,
      );
    }
    logger.info({ userId: root.id }, "administrator account created");
  }
  const rootToken = env.INITIAL_ROOT_TOKEN;
  if (rootToken && !(await findPersonalAccessTokenByValue(db, rootToken))) {
    try {
      await insertPersonalAccessToken(db, root.id, { name: "initial root token", scopes: ["api", "read_user", "sudo"] }, now, rootToken);
      logger.info({ userId: root.id }, "initial root token installed");
    } catch (error) {
      // Another replica installed it at the same moment.
      if (violatedUniqueConstraint(error) === undefined) throw error;
    }
  }
}
