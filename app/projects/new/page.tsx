import type { Metadata } from "next";
import { NewProjectForm } from "@/components/projects/new-project-form";
import { requireSessionContext } from "@/lib/auth/session";
import { currentUser } from "@/lib/users/users";
import { createProjectAction } from "./actions";

export const metadata: Metadata = { title: "New project" };

export default async function NewProjectPage() {
  const user = currentUser(await requireSessionContext("/projects/new"));
  return (
    <>
      <div className="page-header">
        <div>
          <h1>New project</h1>
          <p className="muted">A project holds issues, members and a Git repository.</p>
        </div>
      </div>
      <NewProjectForm create={createProjectAction} namespacePath={user.username} />
    </>
  );
}
