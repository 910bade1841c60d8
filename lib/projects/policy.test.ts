import { describe, expect, it } from "vitest";
import { accessLevels } from "@/lib/db/schema";
import { abilityMinimumLevels, can, canGrant, grantableRoles, hasFullRights, type ProjectStanding } from "./policy";
import { roleLevels } from "./roles";

const standing = (visibility: ProjectStanding["project"]["visibility"], accessLevel: number | null, archived = false): ProjectStanding => ({
  project: { visibility, archived },
  accessLevel,
});

describe("project policy", () => {
  it("names the same levels as the stored roles", () => {
    expect(roleLevels).toEqual(accessLevels);
  });

  it("grants each ability from its least role up, and nothing without a role", () => {
    for (const [ability, minimum] of Object.entries(abilityMinimumLevels) as [keyof typeof abilityMinimumLevels, number][]) {
      for (const level of Object.values(roleLevels)) expect(can(standing("public", level), ability), `${ability} at ${level}`).toBe(level >= minimum);
      expect(can(standing("public", null), ability), ability).toBe(false);
    }
    expect(abilityMinimumLevels).toMatchObject({
      readInternalNotes: roleLevels.reporter,
      createInternalNote: roleLevels.reporter,
      closeIssue: roleLevels.developer,
      triageAlerts: roleLevels.developer,
      manageMembers: roleLevels.maintainer,
      manageIntegrations: roleLevels.maintainer,
      manageOwners: roleLevels.owner,
      manageLabels: roleLevels.reporter,
      manageNotes: roleLevels.maintainer,
      deleteIssue: roleLevels.owner,
    });
  });

  it("code: anyone who sees a public or internal project reads it; a private project's, Reporters and above", () => {
    expect(can(standing("public", null), "readCode")).toBe(true);
    expect(can(standing("internal", null), "readCode")).toBe(true);
    expect(can(standing("private", roleLevels.guest), "readCode")).toBe(false);
    expect(can(standing("private", roleLevels.reporter), "readCode")).toBe(true);
  });

  it("an archived project is read-only for every role: no pushes, issues, comments or milestones; reading and settings go on", () => {
    const owner = (archived: boolean) => standing("private", roleLevels.owner, archived);
    for (const ability of ["pushCode", "createIssue", "updateIssue", "closeIssue", "comment", "createInternalNote", "manageMilestones"] as const) {
      expect(can(owner(false), ability), ability).toBe(true);
      expect(can(owner(true), ability), ability).toBe(false);
    }
    for (const ability of ["readCode", "readStatistics", "updateProject", "archiveProject", "removeProject", "manageMembers", "readAlerts"] as const) {
      expect(can(owner(true), ability), ability).toBe(true);
    }
  });

  it("project settings: Maintainers edit them; visibility, archiving and deletion are the Owner's", () => {
    expect(abilityMinimumLevels).toMatchObject({
      readStatistics: roleLevels.reporter,
      updateProject: roleLevels.maintainer,
      changeVisibility: roleLevels.owner,
      archiveProject: roleLevels.owner,
      removeProject: roleLevels.owner,
    });
  });

  it("Maintainers hand out every role below Owner; Owners every role; others none", () => {
    expect(grantableRoles(standing("private", roleLevels.maintainer)).map((role) => role.name)).toEqual(["Guest", "Reporter", "Developer", "Maintainer"]);
    expect(grantableRoles(standing("private", roleLevels.owner)).map((role) => role.name)).toEqual(["Guest", "Reporter", "Developer", "Maintainer", "Owner"]);
    expect(grantableRoles(standing("private", roleLevels.developer))).toEqual([]);
    expect(canGrant(standing("private", roleLevels.maintainer), roleLevels.owner)).toBe(false);
  });

  it("full rights: browser sessions and `api` tokens, not `read_api` ones or anonymous callers", () => {
    const user = { id: 1 } as never;
    expect(hasFullRights({ kind: "user", user, scopes: null })).toBe(true);
    expect(hasFullRights({ kind: "user", user, scopes: new Set(["api"]) })).toBe(true);
    expect(hasFullRights({ kind: "user", user, scopes: new Set(["read_api", "read_user"]) })).toBe(false);
    expect(hasFullRights({ kind: "anonymous" })).toBe(false);
    expect(hasFullRights({ kind: "system", job: "test" })).toBe(true);
  });
});
