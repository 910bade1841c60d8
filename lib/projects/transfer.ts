import "server-only";
import { eq, sql } from "drizzle-orm";
import { actingUser, type Ctx } from "@/lib/context";
import { violatedUniqueConstraint } from "@/lib/db/errors";
import { namespaces, projects, type NamespaceRow } from "@/lib/db/schema";
import { BadRequestError, NotFoundError, UnauthorizedError } from "@/lib/errors";
import { groupAccessLevelIn, groupVisibleTo } from "@/lib/groups/access";
import { canInGroup, visibilityWithin } from "@/lib/groups/policy";
import { noSuchId, numericReference } from "@/lib/api/param-types";
import { viewerOf } from "./access";
import { detailsOf, getProjectWithAbility, getVisibleProject, type ProjectDetails } from "./projects";
import { redirectRenamedProject } from "./redirect-routes";

/** The namespace `PUT /projects/:id/transfer` names (an id or a full path), if the caller may see it, with their role. */
async function transferTarget(ctx: Ctx, reference: string): Promise<{ namespace: NamespaceRow; accessLevel: number | null }> {
  const viewer = viewerOf(ctx);
  const user = actingUser(ctx)!;
  const id = numericReference(reference);
  const named = id === null ? sql`lower(${namespaces.fullPath}) = lower(${reference})` : eq(namespaces.id, id === noSuchId ? -1 : id);
  const [row] = await ctx.db
    .select({ namespace: namespaces, accessLevel: groupAccessLevelIn(viewer) })
    .from(namespaces)
    .where(sql`${named} and (${namespaces.ownerId} = ${user.id} or (${namespaces.kind} = 'group' and ${groupVisibleTo(viewer)}) or ${user.isAdmin})`);
  if (!row) throw new NotFoundError("Namespace");
  return row;
}

/**
 * `PUT /projects/:id/transfer` (the project's Owners), to the caller's namespace or a group where they are at least
 * Maintainer. The project keeps its id, so its repository, issues and events go with it; its old full path leads to
 * it from then on (a redirect route), and a project more visible than its new group becomes as visible as the group,
 * as GitLab's TransferService does. GitLab records no event for it.
 */
export async function transferProject(ctx: Ctx, reference: string, namespaceReference: string): Promise<ProjectDetails> {
  const user = actingUser(ctx);
  if (!user) throw new UnauthorizedError();
  const view = await getProjectWithAbility(ctx, reference, "removeProject");
  const target = await transferTarget(ctx, namespaceReference);
  const { namespace } = target;
  if (namespace.id === view.namespace.id) throw new BadRequestError("Failed to transfer project: Project is already in this namespace.");
  if (namespace.kind === "group" && !user.isAdmin && !canInGroup(target, "transferProjects")) {
    throw new BadRequestError("Failed to transfer project: You don't have permission to transfer projects into that namespace.");
  }
  if (namespace.kind === "user" && namespace.ownerId !== user.id && !user.isAdmin) throw new NotFoundError("Namespace");
  const visibility = namespace.kind === "group" && !visibilityWithin(view.project.visibility, namespace.visibility) ? namespace.visibility : view.project.visibility;
  const oldFullPath = `${view.namespace.fullPath}/${view.project.path}`;
  try {
    const project = await ctx.db.transaction(async (tx) => {
      const [row] = await tx
        .update(projects)
        .set({ namespaceId: namespace.id, visibility, updatedAt: ctx.now })
        .where(eq(projects.id, view.project.id))
        .returning();
      if (!row) throw new NotFoundError("Project");
      await redirectRenamedProject(tx, row.id, oldFullPath, `${namespace.fullPath}/${row.path}`);
      return row;
    });
    // The caller's role may differ in the new namespace: read the project as they now see it.
    return detailsOf(ctx, await getVisibleProject(ctx, String(project.id)));
  } catch (error) {
    if (violatedUniqueConstraint(error) === "projects_namespace_path_lower_key") {
      throw new BadRequestError("Failed to transfer project: Project with same name or path in target namespace already exists");
    }
    throw error;
  }
}
