import "server-only";
import { eq } from "drizzle-orm";
import type { Database } from "@/lib/db";
import { projects, type ProjectRow, type UserRow } from "@/lib/db/schema";
import { adoptDefaultBranch, recordPushEvents } from "@/lib/git/push-events";
import { commitToNewBranch, ensureRepository, initialBranch, zeroSha } from "@/lib/git/repositories";
import type { ProjectView } from "./projects";
import { projectWebUrl } from "./serialize";

/**
 * The README a project created with `initialize_with_readme` starts with, as GitLab's default template begins: the
 * project's name as its title, its description, then how to put code in it.
 */
export function initialReadme(view: Pick<ProjectView, "project" | "namespace">, branch: string): string {
  const { project } = view;
  return `# ${project.name}

${project.description ?? ""}


## Getting started

This repository starts with this README on the \`${branch}\` branch. Clone it to work on it, or push a repository you
already have to it:

\`\`\`
cd existing_repo
git remote add origin ${projectWebUrl(view)}.git
git branch -M ${branch}
git push -uf origin ${branch}
\`\`\`

Then edit this README to say what the project is, how to use it and how to contribute.
`;
}

/**
 * GitLab's `initialize_with_readme`: the project's default branch starts with one commit, "Initial commit", adding
 * `README.md`, authored by the creator; the branch becomes the default branch, and the push event GitLab records for
 * it (its post-receive) is recorded the same way a push's is. Answers the project as it is now.
 */
export async function initializeWithReadme(db: Database, view: ProjectView, creator: UserRow, now: Date): Promise<ProjectRow> {
  const projectId = view.project.id;
  const repository = await ensureRepository(projectId);
  const branch = initialBranch;
  const sha = await commitToNewBranch(repository, {
    branch,
    message: "Initial commit",
    author: { name: creator.name, email: creator.email, time: now },
    files: [{ path: "README.md", content: initialReadme(view, branch) }],
  });
  const updates = [{ oldSha: zeroSha, newSha: sha, ref: `refs/heads/${branch}` }];
  await adoptDefaultBranch(db, { projectId, repository, updates });
  await recordPushEvents(db, { projectId, authorId: creator.id, repository, updates, refsBefore: new Map(), now });
  const [project] = await db.select().from(projects).where(eq(projects.id, projectId));
  if (!project) throw new Error(`project ${projectId} vanished while its README was written`);
  return project;
}
