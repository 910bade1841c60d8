import "server-only";
import { and, asc, eq } from "drizzle-orm";
import type { Executor } from "@/lib/db";
import { accessLevels, groupMembers, namespaces } from "@/lib/db/schema";
import { amongIds, groupMembershipActive, utcDay } from "@/lib/projects/access";
import { memberGroupIds } from "./access";

/**
 * GitLab's group claims (its doorkeeper-openid_connect configuration), released with `openid` only. Userinfo has
 * `groups`, the full paths of every group the user belongs to and those below them (`membership_groups`), and the
 * groups where their own membership is Owner, Maintainer or Developer under GitLab's claim names, each left out when
 * empty; the ID token has `groups_direct`, the groups of their own memberships.
 */
export async function userinfoGroupClaims(db: Executor, userId: number, now: Date): Promise<Record<string, string[]>> {
  const today = utcDay(now);
  const [inherited, direct] = await Promise.all([
    db
      .select({ fullPath: namespaces.fullPath })
      .from(namespaces)
      .where(amongIds(namespaces.id, memberGroupIds(userId, today)))
      .orderBy(asc(namespaces.fullPath)),
    directGroups(db, userId, today),
  ]);
  const withRole = (level: number) => direct.filter((row) => row.accessLevel === level).map((row) => row.fullPath);
  const roleClaims = {
    "https://gitlab.org/claims/groups/owner": withRole(accessLevels.owner),
    "https://gitlab.org/claims/groups/maintainer": withRole(accessLevels.maintainer),
    "https://gitlab.org/claims/groups/developer": withRole(accessLevels.developer),
  };
  return {
    groups: inherited.map((row) => row.fullPath),
    ...Object.fromEntries(Object.entries(roleClaims).filter(([, paths]) => paths.length > 0)),
  };
}

/** `groups_direct` of the ID token. */
export async function idTokenGroupClaims(db: Executor, userId: number, now: Date): Promise<{ groups_direct: string[] }> {
  return { groups_direct: (await directGroups(db, userId, utcDay(now))).map((row) => row.fullPath) };
}

function directGroups(db: Executor, userId: number, today: string) {
  return db
    .select({ fullPath: namespaces.fullPath, accessLevel: groupMembers.accessLevel })
    .from(groupMembers)
    .innerJoin(namespaces, eq(namespaces.id, groupMembers.groupId))
    .where(and(eq(groupMembers.userId, userId), groupMembershipActive(today)))
    .orderBy(asc(namespaces.fullPath));
}
