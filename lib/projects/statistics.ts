import "server-only";
import type { ProjectRow } from "@/lib/db/schema";
import { commitCount, repositorySize } from "@/lib/git/repositories";

/** What GitLab's project statistics hold that this service has: the repository's. */
export interface ProjectStatistics {
  /** Commits on the default branch. */
  commitCount: number;
  /** Bytes of the repository on disk. */
  repositorySize: number;
}

/** Read from the repository at the time of asking (GitLab refreshes its stored statistics after pushes). */
export async function readProjectStatistics(project: Pick<ProjectRow, "id" | "defaultBranch">): Promise<ProjectStatistics> {
  const [commits, size] = await Promise.all([commitCount(project.id, project.defaultBranch), repositorySize(project.id)]);
  return { commitCount: commits, repositorySize: size };
}
