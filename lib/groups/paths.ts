/**
 * Where a group's pages are: `/groups/<full path>` for its overview and `/groups/<full path>/-/<page>` for the others,
 * as on GitLab. Pure, so pages, components and serializers build the same links.
 */
/** A group page below its overview. */
export type GroupSubpage = "group_members" | "activity" | "edit";

export function groupPagePath(fullPath: string, page?: GroupSubpage): string {
  return `/groups/${fullPath}${page ? `/-/${page}` : ""}`;
}
