import "server-only";
import type { Ctx } from "@/lib/context";
import { findUserById } from "./users";

const palette = ["#6b4fbb", "#1f75cb", "#108548", "#c17d10", "#dd2b0e", "#6e49cb", "#0b5cad", "#2f7d61"];

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** A generated avatar (the user's initial on a colour picked by id), so no avatar URL ever leaves the instance. */
export async function renderAvatar(ctx: Ctx, userId: number): Promise<string | null> {
  const user = await findUserById(ctx.db, userId);
  if (!user) return null;
  const initial = escapeXml((user.name.trim()[0] ?? user.username[0] ?? "?").toUpperCase());
  const colour = palette[user.id % palette.length];
  return `<svg xmlns="http://www.w3.org/2000/svg" width="80" height="80" viewBox="0 0 80 80"><rect width="80" height="80" rx="40" fill="${colour}"/><text x="40" y="52" font-family="sans-serif" font-size="36" text-anchor="middle" fill="#fff">${initial}</text></svg>`;
}
