import type { Metadata } from "next";
import { sessionContext } from "@/lib/auth/session";
import { NotFoundError } from "@/lib/errors";
import { getVisibleProject } from "@/lib/projects/projects";
import { projectFullPath } from "@/lib/projects/serialize";

interface ProjectPageProps {
  params: Promise<{ namespace: string; project: string }>;
}

/**
 * The title of one of a project's pages, "<page> · <project name>", so tabs and history tell projects apart, plus what
 * `more` adds for a project the visitor may see. A project the visitor may not see is not named: its page answers 404
 * anyway.
 */
export function projectPageMetadata(page: string, more?: (fullPath: string) => Metadata): (props: ProjectPageProps) => Promise<Metadata> {
  return async ({ params }) => {
    const { namespace, project } = await params;
    try {
      const view = await getVisibleProject(await sessionContext(), `${namespace}/${project}`);
      return { ...more?.(projectFullPath(view)), title: `${page} · ${view.project.name}` };
    } catch (error) {
      if (error instanceof NotFoundError) return { title: page };
      throw error;
    }
  };
}
