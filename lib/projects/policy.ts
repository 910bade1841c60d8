import type { Actor } from "@/lib/context";
import type { ProjectVisibility } from "@/lib/db/schema";
import { roleLevels, roleOptions } from "./roles";

/**
 * Who may do what in a project, in one table: each ability and the least role it needs (GitLab's project permissions
 * for the roles this service has). Pages, components and domain verbs ask `can` rather than compare access levels,
 * and the SQL visibility rules take their levels from here. Pure, so components import it.
 */
export const abilityMinimumLevels = {
  createIssue: roleLevels.reporter,
  updateIssue: roleLevels.reporter,
  comment: roleLevels.reporter,
  /** Confidential issues and their events (their authors see them too, whatever their role). */
  readConfidentialIssues: roleLevels.reporter,
  /** Internal notes and their `commented` events. */
  readInternalNotes: roleLevels.reporter,
  createInternalNote: roleLevels.reporter,
  manageMilestones: roleLevels.reporter,
  /** Create, edit and delete the project's labels (GitLab's `admin_label`). */
  manageLabels: roleLevels.reporter,
  /** A private project's code and push events; the code of public and internal projects is anyone's who sees them. */
  readPrivateCode: roleLevels.reporter,
  readAlerts: roleLevels.reporter,
  /** Close and reopen issues. */
  closeIssue: roleLevels.developer,
  triageAlerts: roleLevels.developer,
  sendTestAlerts: roleLevels.developer,
  pushCode: roleLevels.developer,
  /** Project statistics (commit count, sizes). */
  readStatistics: roleLevels.reporter,
  manageMembers: roleLevels.maintainer,
  /** Edit and delete anyone's comments (GitLab's `admin_note`); authors may always edit and delete their own. */
  manageNotes: roleLevels.maintainer,
  /** Edit the project's settings: name, path, description, default branch, issue tracker (GitLab's `admin_project`). */
  updateProject: roleLevels.maintainer,
  /** The project's webhooks and their deliveries (GitLab's `admin_project`, which its hooks API asks for). */
  manageWebhooks: roleLevels.maintainer,
  /** Integrations (alert endpoints, chat notifications) and alert settings. */
  manageIntegrations: roleLevels.maintainer,
  /** Create, change and delete alert silences (maintenance windows); Reporters read them with the alerts. */
  manageAlertSilences: roleLevels.maintainer,
  /** Alert emails, when the project sends them (GitLab mails its Owners and Maintainers). */
  receiveAlertEmails: roleLevels.maintainer,
  /** Grant, change or take away the Owner role. */
  manageOwners: roleLevels.owner,
  /** Delete issues, with their comments and events (GitLab's `destroy_issue`). */
  deleteIssue: roleLevels.owner,
  changeVisibility: roleLevels.owner,
  archiveProject: roleLevels.owner,
  removeProject: roleLevels.owner,
} as const;

export type RoleAbility = keyof typeof abilityMinimumLevels;
export type ProjectAbility = RoleAbility | "readCode";

/**
 * What an archived project refuses whatever the role, as GitLab's archived projects do: it is read-only (no pushes,
 * no new or changed issues, comments or milestones) until an Owner unarchives it; settings and members still change.
 */
const refusedWhenArchived: ReadonlySet<ProjectAbility> = new Set<RoleAbility>([
  "createIssue",
  "updateIssue",
  "comment",
  "createInternalNote",
  "manageMilestones",
  "closeIssue",
  "deleteIssue",
  "manageLabels",
  "manageNotes",
  "pushCode",
]);

/**
 * The caller's standing in a project, as a `ProjectView` carries it: the project's visibility, whether it is archived,
 * and the caller's role (admins count as Owner; anonymous callers, non-members and expired members have none).
 */
export interface ProjectStanding {
  /** `archived` absent: a project that is not archived (standings made by hand, in tests). */
  project: { visibility: ProjectVisibility; archived?: boolean };
  accessLevel: number | null;
}

export function can(standing: ProjectStanding, ability: ProjectAbility): boolean {
  if (standing.project.archived && refusedWhenArchived.has(ability)) return false;
  if (ability === "readCode") return standing.project.visibility !== "private" || can(standing, "readPrivateCode");
  return (standing.accessLevel ?? 0) >= abilityMinimumLevels[ability];
}

/** Whether the caller may give someone `level`: Maintainers hand out every role below Owner, Owners every role. */
export function canGrant(standing: ProjectStanding, level: number): boolean {
  return can(standing, "manageMembers") && (level !== roleLevels.owner || can(standing, "manageOwners"));
}

/** The roles the caller may hand out, in the order people choose them. */
export function grantableRoles(standing: ProjectStanding) {
  return roleOptions.filter((role) => canGrant(standing, role.accessLevel));
}

/**
 * Whether the credential carries its user's full rights: a browser session, or a token with the `api` scope. Secrets
 * that let their holder write (alert integration keys) are shown only to such callers, never to `read_api` tokens.
 */
export function hasFullRights(actor: Actor): boolean {
  return actor.kind === "system" || (actor.kind === "user" && (actor.scopes === null || actor.scopes.has("api")));
}
