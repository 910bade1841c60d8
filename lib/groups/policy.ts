import { roleLevels, roleOptions } from "@/lib/projects/roles";

/**
 * Who may do what in a group, as GitLab's GroupPolicy has it for the settings this service keeps at their defaults:
 * projects are created by Developers and above (the instance default `default_project_creation`, Developers +
 * Maintainers), subgroups by Maintainers and above (`subgroup_creation_level`, maintainer), and the group itself, its
 * members and its deletion are the Owners'. Pure, like the project policy.
 */
export const groupAbilityMinimumLevels = {
  createProject: roleLevels.developer,
  createSubgroup: roleLevels.maintainer,
  /** Transfer a project out of the group (GitLab asks for `admin_project` there and `transfer_projects` here). */
  transferProjects: roleLevels.maintainer,
  manageMembers: roleLevels.owner,
  updateGroup: roleLevels.owner,
  removeGroup: roleLevels.owner,
} as const;

export type GroupAbility = keyof typeof groupAbilityMinimumLevels;

/** The caller's standing in a group: their role there, direct or inherited (admins count as Owner). */
export interface GroupStanding {
  accessLevel: number | null;
}

export function canInGroup(standing: GroupStanding, ability: GroupAbility): boolean {
  return (standing.accessLevel ?? 0) >= groupAbilityMinimumLevels[ability];
}

/** The roles the caller may hand out in the group: every one for its Owners, none for anyone else. */
export function grantableGroupRoles(standing: GroupStanding) {
  return canInGroup(standing, "manageMembers") ? [...roleOptions] : [];
}

const visibilityOrder = { private: 0, internal: 1, public: 2 } as const;

/** Whether `inner` (a subgroup's or a project's visibility) is no more visible than `outer` (its group's). */
export function visibilityWithin(inner: keyof typeof visibilityOrder, outer: keyof typeof visibilityOrder): boolean {
  return visibilityOrder[inner] <= visibilityOrder[outer];
}
