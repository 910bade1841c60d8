import type { Metadata } from "next";
import { NewProjectForm } from "@/components/projects/new-project-form";
import { requireSessionContext } from "@/lib/auth/session";
import { newProjectNamespaces } from "@/lib/groups/groups";
import { createProjectAction } from "./actions";

export const metadata: Metadata = { title: "New project" };

/** `/projects/new`, or `/projects/new?namespace_id=<id>` from a group's page, which chooses that group. */
export default async function NewProjectPage({ searchParams }: { searchParams: Promise<{ namespace_id?: string | string[] }> }) {
  const namespaces = await newProjectNamespaces(await requireSessionContext("/projects/new"));
  const asked = Number((await searchParams).namespace_id);
  const chosen = namespaces.find((namespace) => namespace.id === asked) ?? namespaces[0]!;
  return (
    <>
      <div className="page-header">
        <div>
          <h1>New project</h1>
          <p className="muted">A project holds issues, members and a Git repository.</p>
        </div>
      </div>
      <NewProjectForm create={createProjectAction} namespaces={namespaces} namespaceId={chosen.id} />
    </>
  );
}
