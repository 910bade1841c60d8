import "server-only";
import { z } from "zod";
import { entity, isoDate, isoDateTime } from "@/lib/api/entities";
import { accessLevels, namespaceKinds, projectVisibilities, type NamespaceRow } from "@/lib/db/schema";
import { env } from "@/lib/env";
import { initialBranch } from "@/lib/git/repositories";
import { serializeUserBasic, userAvatarUrl, userBasicEntity } from "@/lib/users/serialize";
import { can } from "./policy";
import type { ProjectDetails, ProjectView } from "./projects";
import type { ProjectStatistics } from "./statistics";
import type { MemberView } from "./members";

export function projectFullPath({ project, namespace }: Pick<ProjectView, "project" | "namespace">): string {
  return `${namespace.fullPath}/${project.path}`;
}

/** GitLab's `name_with_namespace` (`Project#full_name`): `Acme / Platform / Project`. */
export function projectNameWithNamespace({ project, namespace }: Pick<ProjectView, "project" | "namespace">): string {
  return `${namespace.fullName} / ${project.name}`;
}

export function projectWebUrl(view: Pick<ProjectView, "project" | "namespace">): string {
  return `${env.EXTERNAL_URL}/${projectFullPath(view)}`;
}

/** The default branch as GitLab shows it: the one chosen (or first pushed), else the branch a new repository starts on. */
export function projectDefaultBranch(view: Pick<ProjectView, "project">): string {
  return view.project.defaultBranch ?? initialBranch;
}

export const namespaceBasicEntity = entity(
  "NamespaceBasic",
  "The namespace (a user's or a group) a project is in",
  z.strictObject({
    id: z.number().int(),
    name: z.string(),
    path: z.string(),
    kind: z.enum(namespaceKinds),
    full_path: z.string(),
    parent_id: z.number().int().nullable(),
    avatar_url: z.string().nullable(),
    web_url: z.string(),
  }),
);

const basicProjectShape = {
  id: z.number().int(),
  description: z.string().nullable(),
  name: z.string(),
  name_with_namespace: z.string(),
  path: z.string(),
  path_with_namespace: z.string(),
  created_at: isoDateTime,
  /** Only for callers who may read the code. */
  default_branch: z.string().optional(),
  tag_list: z.array(z.string()),
  topics: z.array(z.string()),
  http_url_to_repo: z.string(),
  web_url: z.string(),
  /** Only for callers who may read the code. */
  forks_count: z.number().int().optional(),
  avatar_url: z.null(),
  star_count: z.number().int(),
  last_activity_at: isoDateTime,
  namespace: namespaceBasicEntity,
};

export const basicProjectEntity = entity(
  "BasicProject",
  "A project's identity and basic details: what anonymous callers and `simple=true` lists get",
  z.strictObject(basicProjectShape),
);

const featureAccessLevel = z.enum(["enabled", "disabled"]);
const roleAccess = z.strictObject({ access_level: z.number().int(), notification_level: z.number().int() }).nullable();

export const projectStatisticsEntity = entity(
  "ProjectStatistics",
  "A project's sizes in bytes (`statistics=true`)",
  z.strictObject({
    commit_count: z.number().int(),
    storage_size: z.number().int(),
    repository_size: z.number().int(),
    wiki_size: z.number().int(),
    lfs_objects_size: z.number().int(),
    job_artifacts_size: z.number().int(),
    pipeline_artifacts_size: z.number().int(),
    packages_size: z.number().int(),
    snippets_size: z.number().int(),
    uploads_size: z.number().int(),
    container_registry_size: z.number().int(),
  }),
);

export const projectEntity = entity(
  "Project",
  "A project as signed-in callers see it; `permissions` in lists and `GET /projects/:id` (the caller's own role)",
  z.strictObject({
    ...basicProjectShape,
    _links: z.strictObject({
      self: z.string(),
      /** While the issue tracker is on. */
      issues: z.string().optional(),
      labels: z.string(),
      events: z.string(),
      members: z.string(),
    }),
    empty_repo: z.boolean(),
    archived: z.boolean(),
    visibility: z.enum(projectVisibilities),
    issues_enabled: z.boolean(),
    merge_requests_enabled: z.boolean(),
    wiki_enabled: z.boolean(),
    jobs_enabled: z.boolean(),
    snippets_enabled: z.boolean(),
    container_registry_enabled: z.boolean(),
    issues_access_level: featureAccessLevel,
    repository_access_level: featureAccessLevel,
    merge_requests_access_level: featureAccessLevel,
    wiki_access_level: featureAccessLevel,
    builds_access_level: featureAccessLevel,
    snippets_access_level: featureAccessLevel,
    creator_id: z.number().int().nullable(),
    import_status: z.string(),
    /** While the issue tracker is on. */
    open_issues_count: z.number().int().optional(),
    updated_at: isoDateTime,
    request_access_enabled: z.boolean(),
    statistics: projectStatisticsEntity.optional(),
    permissions: z.strictObject({ project_access: roleAccess, group_access: roleAccess }).optional(),
  }),
);

/** What project lists and `GET /projects/:id` answer: the basic details to anonymous callers and with `simple=true`. */
export const projectAsListedEntity = z.union([projectEntity, basicProjectEntity]);

/**
 * GitLab's BasicProjectDetails (its ProjectIdentity and more), limited to what this service has: no SSH, forks, stars
 * or avatars (their counts are 0, the avatar null). `default_branch` and `forks_count` only for those who may read
 * the code. It is the whole entity for anonymous callers and `simple=true`.
 */
export function serializeBasicProject(view: ProjectView): z.infer<typeof basicProjectEntity> {
  const { project, namespace } = view;
  const readsCode = can(view, "readCode");
  return {
    id: project.id,
    description: project.description,
    name: project.name,
    name_with_namespace: projectNameWithNamespace(view),
    path: project.path,
    path_with_namespace: projectFullPath(view),
    created_at: project.createdAt.toISOString(),
    ...(readsCode ? { default_branch: projectDefaultBranch(view) } : {}),
    tag_list: [] as string[],
    topics: [] as string[],
    http_url_to_repo: `${projectWebUrl(view)}.git`,
    web_url: projectWebUrl(view),
    ...(readsCode ? { forks_count: 0 } : {}),
    avatar_url: null,
    star_count: 0,
    last_activity_at: project.lastActivityAt.toISOString(),
    namespace: serializeNamespaceBasic(namespace),
  };
}

/** GitLab's NamespaceBasic: a group's web page is under `/groups/`, a user's is their profile. */
export function serializeNamespaceBasic(namespace: NamespaceRow): z.infer<typeof namespaceBasicEntity> {
  const group = namespace.kind === "group";
  return {
    id: namespace.id,
    name: namespace.name,
    path: namespace.path,
    kind: namespace.kind,
    full_path: namespace.fullPath,
    parent_id: namespace.parentId,
    avatar_url: namespace.ownerId === null ? null : userAvatarUrl({ id: namespace.ownerId }),
    web_url: group ? `${env.EXTERNAL_URL}/groups/${namespace.fullPath}` : `${env.EXTERNAL_URL}/${namespace.fullPath}`,
  };
}

/** A project feature's `*_access_level`, as GitLab words it. */
function featureAccess(enabled: boolean): "enabled" | "disabled" {
  return enabled ? "enabled" : "disabled";
}

/**
 * GitLab's Project entity, for signed-in callers: the basic details, then the project's state and features (merge
 * requests, wiki, CI, snippets and the registry do not exist here, so they are off), `open_issues_count` while the
 * issue tracker is on, `statistics` when asked for and allowed, and, with `permissions` (the list and `GET` as a
 * member sees them: GitLab's ProjectWithAccess), the caller's own role.
 */
export function serializeProject(details: ProjectDetails, { permissions = false }: { permissions?: boolean } = {}): z.infer<typeof projectEntity> {
  const { view, openIssuesCount, statistics, membershipAccessLevel, groupAccessLevel } = details;
  const { project } = view;
  const api = `${env.EXTERNAL_URL}/api/v4/projects/${project.id}`;
  // Added to the basic entity rather than spread into a new literal: a literal that opens with a spread of twenty
  // fields and goes on for forty is built about ten times slower by V8 (≈35 µs against 3 µs a project), which a
  // page of a hundred projects pays a hundred times.
  return Object.assign(serializeBasicProject(view), {
    _links: {
      self: api,
      ...(project.issuesEnabled ? { issues: `${api}/issues` } : {}),
      labels: `${api}/labels`,
      events: `${api}/events`,
      members: `${api}/members`,
    },
    empty_repo: project.defaultBranch === null,
    archived: project.archived,
    visibility: project.visibility,
    issues_enabled: project.issuesEnabled,
    merge_requests_enabled: false,
    wiki_enabled: false,
    jobs_enabled: false,
    snippets_enabled: false,
    container_registry_enabled: false,
    issues_access_level: featureAccess(project.issuesEnabled),
    repository_access_level: featureAccess(true),
    merge_requests_access_level: featureAccess(false),
    wiki_access_level: featureAccess(false),
    builds_access_level: featureAccess(false),
    snippets_access_level: featureAccess(false),
    creator_id: project.creatorId,
    import_status: "none",
    ...(project.issuesEnabled ? { open_issues_count: openIssuesCount } : {}),
    updated_at: project.updatedAt.toISOString(),
    request_access_enabled: false,
    ...(statistics ? { statistics: serializeStatistics(statistics) } : {}),
    ...(permissions
      ? {
          permissions: {
            // GitLab's notification level 3 is "global": the member follows their global setting.
            project_access: membershipAccessLevel === null ? null : { access_level: membershipAccessLevel, notification_level: 3 },
            group_access: groupAccessLevel === null ? null : { access_level: groupAccessLevel, notification_level: 3 },
          },
        }
      : {}),
  });
}

/**
 * `POST /projects`' answer: a personal project's creator is its Owner; in a group they are no member, and keep the role
 * the group gives them. It has no issues yet.
 */
export function serializeCreatedProject(view: ProjectView): z.infer<typeof projectEntity> {
  const inGroup = view.namespace.kind === "group";
  return serializeProject({
    view,
    openIssuesCount: 0,
    statistics: null,
    membershipAccessLevel: inGroup ? null : accessLevels.owner,
    groupAccessLevel: inGroup ? view.accessLevel : null,
  });
}

/** GitLab's ProjectStatistics; what this service does not store (wiki, LFS, artifacts, packages…) is 0. */
function serializeStatistics(statistics: ProjectStatistics): z.infer<typeof projectStatisticsEntity> {
  return {
    commit_count: statistics.commitCount,
    storage_size: statistics.repositorySize,
    repository_size: statistics.repositorySize,
    wiki_size: 0,
    lfs_objects_size: 0,
    job_artifacts_size: 0,
    pipeline_artifacts_size: 0,
    packages_size: 0,
    snippets_size: 0,
    uploads_size: 0,
    container_registry_size: 0,
  };
}

export const memberEntity = entity(
  "Member",
  "A project's or group's member: the user's basic fields, then the membership",
  z.strictObject({
    ...userBasicEntity.shape,
    access_level: z.number().int(),
    created_at: isoDateTime,
    expires_at: isoDate.nullable(),
  }),
);

/** GitLab's member entity: the user's basic fields, then the membership. */
export function serializeMember({ user, member }: { user: MemberView["user"]; member: Pick<MemberView["member"], "accessLevel" | "createdAt" | "expiresAt"> }): z.infer<typeof memberEntity> {
  return {
    ...serializeUserBasic(user),
    access_level: member.accessLevel,
    created_at: member.createdAt.toISOString(),
    expires_at: member.expiresAt,
  };
}

