import "server-only";
import { env } from "@/lib/env";
import type { NamespaceRow } from "@/lib/db/schema";
import { serializeNamespaceBasic } from "@/lib/projects/serialize";
import type { GroupView } from "./groups";
import { groupPagePath } from "./paths";

/**
 * GitLab's Group entity, for the settings this service has: the rest are GitLab's defaults (project creation by
 * Developers and Maintainers, subgroups by Maintainers, no two-factor requirement, no access requests, no LFS or
 * runners of its own).
 */
export function serializeGroup({ group, fullName }: GroupView) {
  return {
    id: group.id,
    web_url: `${env.EXTERNAL_URL}${groupPagePath(group.fullPath)}`,
    name: group.name,
    path: group.path,
    description: group.description ?? "",
    visibility: group.visibility,
    share_with_group_lock: false,
    require_two_factor_authentication: false,
    two_factor_grace_period: 48,
    project_creation_level: "developer",
    auto_devops_enabled: null,
    subgroup_creation_level: "maintainer",
    emails_disabled: false,
    emails_enabled: true,
    mentions_disabled: null,
    lfs_enabled: true,
    default_branch_protection: 2,
    avatar_url: null,
    request_access_enabled: false,
    full_name: fullName,
    full_path: group.fullPath,
    created_at: group.createdAt.toISOString(),
    parent_id: group.parentId,
    shared_runners_setting: "enabled",
    ldap_cn: null,
    ldap_access: null,
    marked_for_deletion_on: null,
  };
}

/** `GET /groups/:id` adds what GitLab's GroupDetail adds; shared projects and groups do not exist here. */
export function serializeGroupDetail(view: GroupView) {
  return Object.assign(serializeGroup(view), { shared_with_groups: [] as unknown[], prevent_sharing_groups_outside_hierarchy: false });
}

/** GitLab's Namespace entity (`GET /namespaces`): the basic fields, and for groups their members' count is left out. */
export function serializeNamespace(namespace: NamespaceRow) {
  return Object.assign(serializeNamespaceBasic(namespace), { billable_members_count: null, plan: "free", trial_ends_on: null, trial: false });
}
