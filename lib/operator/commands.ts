import "server-only";
import { z } from "zod";
import { setPasswordAsAdmin } from "@/lib/auth/passwords";
import { unlockAccount } from "@/lib/auth/sign-in";
import type { Ctx } from "@/lib/context";
import { generateSecret } from "@/lib/crypto";
import type { UserRow } from "@/lib/db/schema";
import { NotFoundError, ParameterError } from "@/lib/errors";
import { blockUser, confirmUserAsAdmin, unblockUser } from "@/lib/users/admin";
import { createUserAsAdmin, findUserByLogin } from "@/lib/users/users";

/**
 * What `npm run admin` can do, for the person who runs the server when no administrator can sign in (GitLab's
 * `gitlab-rake gitlab:password:reset`, `gitea admin user …`). Each runs the verb an administrator's page or API call
 * runs, acting as the service itself (a system actor, with an administrator's rights).
 */
const login = z.string().min(1);

export const operatorCommand = z.discriminatedUnion("command", [
  z.object({ command: z.literal("reset-password"), user: login, password: z.string().optional() }),
  z.object({ command: z.literal("unlock"), user: login }),
  z.object({ command: z.literal("confirm"), user: login }),
  z.object({ command: z.literal("block"), user: login }),
  z.object({ command: z.literal("unblock"), user: login }),
  z.object({ command: z.literal("create-admin"), username: z.string(), email: z.string(), name: z.string().optional(), password: z.string().optional() }),
]);
export type OperatorCommand = z.infer<typeof operatorCommand>;

/** What a command did, for the operator to read; a generated password is shown here once and stored only hashed. */
export interface OperatorOutcome {
  message: string;
  password?: string;
}

/** A password nobody chose: 24 characters from a 32-byte secret. */
function generatedPassword(): string {
  return generateSecret().slice(0, 24);
}

async function namedUser(ctx: Ctx, reference: string): Promise<UserRow> {
  const user = await findUserByLogin(ctx.db, reference);
  if (!user) throw new NotFoundError("User");
  return user;
}

export async function runOperatorCommand(ctx: Ctx, command: OperatorCommand): Promise<OperatorOutcome> {
  switch (command.command) {
    case "reset-password": {
      const user = await namedUser(ctx, command.user);
      const password = command.password ?? generatedPassword();
      await setPasswordAsAdmin(ctx, user.id, password);
      const message = `The password of ${user.username} was changed; every browser session of the account has ended.`;
      return command.password === undefined ? { message, password } : { message };
    }
    case "unlock": {
      const user = await namedUser(ctx, command.user);
      await unlockAccount(user);
      return { message: `${user.username} can sign in again: the failed attempts that locked the account are forgotten.` };
    }
    case "confirm": {
      const user = await namedUser(ctx, command.user);
      const confirmed = await confirmUserAsAdmin(ctx, user.id);
      return { message: user.confirmedAt ? `${confirmed.username}'s email address was already confirmed.` : `${confirmed.username}'s email address is confirmed.` };
    }
    case "block": {
      const user = await namedUser(ctx, command.user);
      return { message: (await blockUser(ctx, user.id)) ? `${user.username} is blocked.` : `${user.username} was already blocked.` };
    }
    case "unblock": {
      const user = await namedUser(ctx, command.user);
      return { message: (await unblockUser(ctx, user.id)) ? `${user.username} is unblocked.` : `${user.username} was not blocked.` };
    }
    case "create-admin": {
      const password = command.password ?? generatedPassword();
      const user = await createUserAsAdmin(ctx, {
        username: command.username,
        email: command.email,
        name: command.name ?? command.username,
        password,
        isAdmin: true,
        skipConfirmation: true,
      });
      const message = `${user.username} (${user.email}) is an administrator and can sign in now.`;
      return command.password === undefined ? { message, password } : { message };
    }
  }
}

/** The command a request names, or the REST API's 400 for what names none. */
export function parseOperatorCommand(body: unknown): OperatorCommand {
  const parsed = operatorCommand.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ParameterError(issue?.path.join(".") || "command", "is missing or invalid");
  }
  return parsed.data;
}
