import "server-only";
import { eq } from "drizzle-orm";
import type { Ctx } from "@/lib/context";
import { violatedUniqueConstraint } from "@/lib/db/errors";
import { projects, type ProjectVisibility } from "@/lib/db/schema";
import { ForbiddenError, ValidationError } from "@/lib/errors";
import { branchExists, detachRepository, discardRepository, reattachRepository, setHead } from "@/lib/git/repositories";
import { logger } from "@/lib/log";
import { projectNameProblem, projectPathProblem } from "./path-rules";
import { can } from "./policy";
import { redirectRenamedProject } from "./redirect-routes";
import { detailsOf, getProjectWithAbility, type ProjectDetails } from "./projects";

/** What `PUT /projects/:id` changes; absent fields stay as they are. */
export interface ProjectChanges {
  name?: string;
  path?: string;
  description?: string;
  visibility?: ProjectVisibility;
  /** An existing branch; the repository's HEAD moves to it too. */
  defaultBranch?: string;
  issuesEnabled?: boolean;
}

function validateChanges(changes: ProjectChanges): void {
  const errors: Record<string, string[]> = {};
  const nameIssue = changes.name === undefined ? undefined : projectNameProblem(changes.name);
  if (nameIssue) errors.name = [nameIssue];
  const pathIssue = changes.path === undefined ? undefined : projectPathProblem(changes.path);
  if (pathIssue) errors.path = [pathIssue];
  if (changes.description !== undefined && changes.description.length > 2000) errors.description = ["is too long (maximum is 2000 characters)"];
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
}

/**
 * `PUT /projects/:id` (Maintainers and above; the visibility is the Owner's to change, as on GitLab). A new default
 * branch must exist, and the repository's HEAD, which clones check out, moves with it before the change is committed.
 * A new path leaves the old one leading to the project (a redirect route). GitLab records no event for settings
 * changes, and neither does this.
 */
export async function updateProject(ctx: Ctx, reference: string, changes: ProjectChanges): Promise<ProjectDetails> {
  const view = await getProjectWithAbility(ctx, reference, "updateProject");
  if (changes.visibility !== undefined && !can(view, "changeVisibility")) throw new ForbiddenError();
  validateChanges(changes);
  const { project } = view;
  const movesHead = changes.defaultBranch !== undefined && changes.defaultBranch !== project.defaultBranch;
  if (movesHead && !(await branchExists(project.id, changes.defaultBranch!))) {
    throw new ValidationError({ base: [`Could not change HEAD: branch '${changes.defaultBranch}' does not exist`] });
  }
  try {
    const updated = await ctx.db.transaction(async (tx) => {
      const [row] = await tx
        .update(projects)
        .set({
          name: changes.name?.trim(),
          path: changes.path,
          description: changes.description,
          visibility: changes.visibility,
          defaultBranch: changes.defaultBranch,
          issuesEnabled: changes.issuesEnabled,
        })
        .where(eq(projects.id, project.id))
        .returning();
      if (!row) throw new Error(`project ${project.id} vanished while being updated`);
      if (row.path !== project.path) {
        await redirectRenamedProject(tx, project.id, `${view.namespace.fullPath}/${project.path}`, `${view.namespace.fullPath}/${row.path}`);
      }
      if (movesHead) await setHead(project.id, changes.defaultBranch!);
      return row;
    });
    return detailsOf(ctx, { ...view, project: updated });
  } catch (error) {
    if (violatedUniqueConstraint(error) === "projects_namespace_path_lower_key") throw new ValidationError({ path: ["has already been taken"] });
    throw error;
  }
}

/**
 * `POST /projects/:id/archive` and `/unarchive` (Owners): an archived project is read-only (see the policy) and
 * listed unless `archived=false` asks otherwise. Archiving an archived project changes nothing and answers the same.
 */
export async function setProjectArchived(ctx: Ctx, reference: string, archived: boolean): Promise<ProjectDetails> {
  const view = await getProjectWithAbility(ctx, reference, "archiveProject");
  const [updated] = await ctx.db.update(projects).set({ archived }).where(eq(projects.id, view.project.id)).returning();
  if (!updated) throw new Error(`project ${view.project.id} vanished while being archived`);
  return detailsOf(ctx, { ...view, project: updated });
}

/**
 * `DELETE /projects/:id` (Owners): the project goes with everything in it (members, issues, notes, milestones,
 * labels, alerts, integrations and its events, by the database's cascades), and so does its repository: moved out
 * of reach first (put back if the deletion fails), then removed from disk once the deletion is committed.
 */
export async function deleteProject(ctx: Ctx, reference: string): Promise<void> {
  const view = await getProjectWithAbility(ctx, reference, "removeProject");
  const projectId = view.project.id;
  const detached = await detachRepository(projectId);
  try {
    await ctx.db.delete(projects).where(eq(projects.id, projectId));
  } catch (error) {
    if (detached) await reattachRepository(projectId, detached);
    throw error;
  }
  if (detached) {
    await discardRepository(detached).catch((error: unknown) => {
      // Out of every project's reach already; only the disk space is lost.
      logger.error({ err: error, projectId, detached }, "could not remove a deleted project's repository");
    });
  }
}
