import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { cache } from "react";
import { sessionContext } from "@/lib/auth/session";
import { ForbiddenError, NotFoundError } from "@/lib/errors";
import { getVisibleProject, type ProjectView } from "@/lib/projects/projects";
import { projectFullPath } from "@/lib/projects/serialize";

export interface ProjectPageProps {
  params: Promise<{ namespace: string; project: string }>;
}

/**
 * The project a page is about, or null when the visitor may not see it. Cached per request: a page's metadata and its
 * body both ask.
 */
const findVisibleProject = cache(async (namespace: string, project: string): Promise<ProjectView | null> => {
  try {
    return await getVisibleProject(await sessionContext(), `${namespace}/${project}`);
  } catch (error) {
    if (error instanceof NotFoundError) return null;
    throw error;
  }
});

/** The project of a page, or the 404 page: private projects look exactly like missing ones to those who cannot see them. */
export async function loadProjectPage(params: ProjectPageProps["params"]): Promise<ProjectView> {
  const { namespace, project } = await params;
  return (await findVisibleProject(namespace, project)) ?? notFound();
}

/**
 * What a page for some roles shows, or the 404 page for a visitor the verb refuses (one who may not see the project,
 * or whose role may not open the page), so such pages look exactly like missing ones.
 */
export async function orNotFound<T>(loading: Promise<T>): Promise<T> {
  try {
    return await loading;
  } catch (error) {
    if (error instanceof NotFoundError || error instanceof ForbiddenError) notFound();
    throw error;
  }
}

/**
 * The title of one of a project's pages, "<page> · <project name>", so tabs and history tell projects apart, plus what
 * `more` adds for a project the visitor may see. A project the visitor may not see is not named: its page answers 404
 * anyway.
 */
export function projectPageMetadata(page: string, more?: (fullPath: string) => Metadata): (props: ProjectPageProps) => Promise<Metadata> {
  return async ({ params }) => {
    const { namespace, project } = await params;
    const view = await findVisibleProject(namespace, project);
    return view ? { ...more?.(projectFullPath(view)), title: `${page} · ${view.project.name}` } : { title: page };
  };
}
