import type { Metadata } from "next";
import { notFound, permanentRedirect, redirect } from "next/navigation";
import { cache } from "react";
import { sessionContext } from "@/lib/auth/session";
import { ForbiddenError, NotFoundError, ProjectMovedError } from "@/lib/errors";
import { groupPagePath } from "@/lib/groups/paths";
import { findVisibleGroup } from "@/lib/groups/groups";
import { getVisibleProject, type ProjectView } from "@/lib/projects/projects";
import { projectFullPath } from "@/lib/projects/serialize";
import { routeProjectPath } from "@/lib/projects/route-path";

export interface ProjectPageProps {
  params: Promise<{ namespace: string; project: string }>;
}

/** A page's query parameters as a search string (`?state=closed`), or nothing when there are none. */
export function searchOf(query: Record<string, string | string[] | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) search.append(name, item);
  }
  const text = search.toString();
  return text === "" ? "" : `?${text}`;
}

/**
 * What a project page does when its project lookup fails: a project named by a path it had before a rename sends the
 * visitor, permanently, to the same page at its new path (`pageAt` builds it from the project's full path), as GitLab
 * follows redirect routes on GET; a project the visitor may not see, or none, is the 404 page. Anything else goes on.
 */
export function projectPageFailure(error: unknown, pageAt: (fullPath: string) => string): never {
  if (error instanceof ProjectMovedError) permanentRedirect(pageAt(error.fullPath));
  if (error instanceof NotFoundError) notFound();
  throw error;
}

/**
 * The project a page is about, or null when the visitor may not see it. Cached per request: a page's metadata and its
 * body both ask. A path the project had before a rename is answered with where it went.
 */
const findVisibleProject = cache(async (namespace: string, project: string): Promise<ProjectView | ProjectMovedError | null> => {
  try {
    return await getVisibleProject(await sessionContext(), routeProjectPath({ namespace, project }));
  } catch (error) {
    if (error instanceof ProjectMovedError) return error;
    if (error instanceof NotFoundError) return null;
    throw error;
  }
});

/**
 * The project of a page, or the 404 page: private projects look exactly like missing ones to those who cannot see them.
 * `subpage` is the page's path below the project (`activity`), where a visitor who came by an old path is sent.
 */
export async function loadProjectPage(params: ProjectPageProps["params"], subpage = ""): Promise<ProjectView> {
  const { namespace, project } = await params;
  const found = await findVisibleProject(namespace, project);
  if (found instanceof ProjectMovedError) projectPageFailure(found, (fullPath) => `/${fullPath}${subpage === "" ? "" : `/${subpage}`}`);
  if (found) return found;
  // `/acme/platform` names a project or, as on GitLab, a subgroup: its page is the group's.
  const group = subpage === "" ? await findVisibleGroup(await sessionContext(), routeProjectPath({ namespace, project })) : null;
  if (group) redirect(groupPagePath(group.group.fullPath));
  notFound();
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
 * anyway (and a moved one's page redirects).
 */
export function projectPageMetadata(page: string, more?: (fullPath: string) => Metadata): (props: ProjectPageProps) => Promise<Metadata> {
  return async ({ params }) => {
    const { namespace, project } = await params;
    const view = await findVisibleProject(namespace, project);
    return view && !(view instanceof ProjectMovedError) ? { ...more?.(projectFullPath(view)), title: `${page} · ${view.project.name}` } : { title: page };
  };
}
