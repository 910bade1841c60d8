import { accessLevelNames, isMembershipActive } from "@/lib/projects/access";
import type { MemberListItem } from "./member-table";

/** A membership (a project's or a group's, direct or inherited) as a row of the members table, read on the server. */
export function memberListItem(
  { user, member }: { user: { id: number; name: string; username: string }; member: { accessLevel: number; createdAt: Date; expiresAt: string | null } },
  now: Date,
): MemberListItem {
  return {
    userId: user.id,
    name: user.name,
    username: user.username,
    role: accessLevelNames[member.accessLevel] ?? String(member.accessLevel),
    accessLevel: member.accessLevel,
    since: member.createdAt.toISOString(),
    expiresAt: member.expiresAt,
    expired: !isMembershipActive(member, now),
  };
}
