import "server-only";
import { z } from "zod";
import { entity, isoDateTime } from "@/lib/api/entities";
import { env } from "@/lib/env";
import { projectVisibilities, type NamespaceRow } from "@/lib/db/schema";
import { namespaceBasicEntity, serializeNamespaceBasic } from "@/lib/projects/serialize";
import type { GroupView } from "./groups";
import { groupPagePath } from "./paths";

const groupShape = {
  id: z.number().int(),
  web_url: z.string(),
  name: z.string(),
  path: z.string(),
  description: z.string(),
  visibility: z.enum(projectVisibilities),
  share_with_group_lock: z.boolean(),
  require_two_factor_authentication: z.boolean(),
  two_factor_grace_period: z.number().int(),
  project_creation_level: z.string(),
  auto_devops_enabled: z.boolean().nullable(),
  subgroup_creation_level: z.string(),
  emails_disabled: z.boolean(),
  emails_enabled: z.boolean(),
  mentions_disabled: z.boolean().nullable(),
  lfs_enabled: z.boolean(),
  default_branch_protection: z.number().int(),
  avatar_url: z.string().nullable(),
  request_access_enabled: z.boolean(),
  full_name: z.string(),
  full_path: z.string(),
  created_at: isoDateTime,
  parent_id: z.number().int().nullable(),
  shared_runners_setting: z.string(),
  ldap_cn: z.string().nullable(),
  ldap_access: z.number().int().nullable(),
  marked_for_deletion_on: z.string().nullable(),
};

export const groupEntity = entity("Group", "A group, as group lists show it", z.strictObject(groupShape));

export const groupDetailEntity = entity(
  "GroupDetail",
  "A group, as `GET /groups/:id` and the changes to a group answer",
  z.strictObject({ ...groupShape, shared_with_groups: z.array(z.never()), prevent_sharing_groups_outside_hierarchy: z.boolean() }),
);

export const namespaceEntity = entity(
  "Namespace",
  "A user's or a group's namespace (`GET /namespaces`)",
  z.strictObject({ ...namespaceBasicEntity.shape, billable_members_count: z.null(), plan: z.string(), trial_ends_on: z.null(), trial: z.boolean() }),
);

/**
 * GitLab's Group entity, for the settings this service has: the rest are GitLab's defaults (project creation by
 * Developers and Maintainers, subgroups by Maintainers, no two-factor requirement, no access requests, no LFS or
 * runners of its own).
 */
export function serializeGroup({ group, fullName }: GroupView): z.infer<typeof groupEntity> {
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
export function serializeGroupDetail(view: GroupView): z.infer<typeof groupDetailEntity> {
  return Object.assign(serializeGroup(view), { shared_with_groups: [] as never[], prevent_sharing_groups_outside_hierarchy: false });
}

/** GitLab's Namespace entity (`GET /namespaces`): the basic fields, and for groups their members' count is left out. */
export function serializeNamespace(namespace: NamespaceRow): z.infer<typeof namespaceEntity> {
  return Object.assign(serializeNamespaceBasic(namespace), { billable_members_count: null, plan: "free", trial_ends_on: null, trial: false });
}
