import "server-only";
import { env } from "@/lib/env";
import { serializeUserBasic } from "@/lib/users/serialize";
import type { ProjectView } from "./projects";
import type { MemberView } from "./members";

export function projectFullPath({ project, namespace }: Pick<ProjectView, "project" | "namespace">): string {
  return `${namespace.path}/${project.path}`;
}

export function projectWebUrl(view: Pick<ProjectView, "project" | "namespace">): string {
  return `${env.EXTERNAL_URL}/${projectFullPath(view)}`;
}

/** GitLab's project entity, limited to the fields this service keeps. */
export function serializeProject(view: ProjectView) {
  const { project, namespace } = view;
  return {
    id: project.id,
    description: project.description,
    name: project.name,
    name_with_namespace: `${namespace.name} / ${project.name}`,
    path: project.path,
    path_with_namespace: projectFullPath(view),
    created_at: project.createdAt.toISOString(),
    default_branch: null,
    http_url_to_repo: `${projectWebUrl(view)}.git`,
    web_url: projectWebUrl(view),
    last_activity_at: project.lastActivityAt.toISOString(),
    namespace: {
      id: namespace.id,
      name: namespace.name,
      path: namespace.path,
      kind: namespace.kind,
      full_path: namespace.path,
      web_url: `${env.EXTERNAL_URL}/${namespace.path}`,
    },
    visibility: project.visibility,
    creator_id: project.creatorId,
  };
}

/** GitLab's member entity: the user's basic fields, then the membership. */
export function serializeMember({ user, member }: MemberView) {
  return {
    ...serializeUserBasic(user),
    access_level: member.accessLevel,
    created_at: member.createdAt.toISOString(),
    expires_at: member.expiresAt,
  };
}

