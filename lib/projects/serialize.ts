import "server-only";
import { accessLevels, type NamespaceRow } from "@/lib/db/schema";
import { env } from "@/lib/env";
import { initialBranch } from "@/lib/git/repositories";
import { serializeUserBasic, userAvatarUrl } from "@/lib/users/serialize";
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

/**
 * GitLab's BasicProjectDetails (its ProjectIdentity and more), limited to what this service has: no SSH, forks, stars
 * or avatars (their counts are 0, the avatar null). `default_branch` and `forks_count` only for those who may read
 * the code. It is the whole entity for anonymous callers and `simple=true`.
 */
export function serializeBasicProject(view: ProjectView) {
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
export function serializeNamespaceBasic(namespace: NamespaceRow) {
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
export function serializeProject(details: ProjectDetails, { permissions = false }: { permissions?: boolean } = {}) {
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
export function serializeCreatedProject(view: ProjectView) {
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
function serializeStatistics(statistics: ProjectStatistics) {
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

/** GitLab's member entity: the user's basic fields, then the membership. */
export function serializeMember({ user, member }: { user: MemberView["user"]; member: Pick<MemberView["member"], "accessLevel" | "createdAt" | "expiresAt"> }) {
  return {
    ...serializeUserBasic(user),
    access_level: member.accessLevel,
    created_at: member.createdAt.toISOString(),
    expires_at: member.expiresAt,
  };
}

