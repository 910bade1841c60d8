/**
 * Where a group's pages are: `/groups/<full path>` for its overview and `/groups/<full path>/-/<page>` for the others,
 * as on GitLab. Pure, so pages, components and serializers build the same links.
 */
export function groupPagePath(fullPath: string, page?: "group_members" | "activity" | "edit"): string {
  return `/groups/${fullPath}${page ? `/-/${page}` : ""}`;
}
