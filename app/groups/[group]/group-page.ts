import type { Metadata } from "next";
import { notFound, permanentRedirect } from "next/navigation";
import { cache } from "react";
import { sessionContext } from "@/lib/auth/session";
import { findVisibleGroup, movedGroupPath, type GroupView } from "@/lib/groups/groups";
import { groupPagePath, type GroupSubpage } from "@/lib/groups/paths";
import { routeNamespacePath } from "@/lib/projects/route-path";

/** `[group]` is the group's full path: proxy.ts turns `/groups/acme/platform/-/…` into one encoded segment. */
export interface GroupPageProps {
  params: Promise<{ group: string }>;
}

/** The group's full path from the route. */
export async function groupPathOf(params: GroupPageProps["params"]): Promise<string> {
  return routeNamespacePath((await params).group);
}

/** Cached per request: a page's metadata and its body both ask. */
const visibleGroup = cache(async (fullPath: string) => findVisibleGroup(await sessionContext(), fullPath));

/**
 * The group of a page, or the 404 page: private groups look exactly like missing ones to those who cannot see them.
 * `subpage` is the page below the group's overview, where a visitor who came by an old path is sent.
 */
export async function loadGroupPage(params: GroupPageProps["params"], subpage?: GroupSubpage): Promise<GroupView> {
  return (await visibleGroup(await groupPathOf(params))) ?? groupPageNotFound(params, subpage);
}

/**
 * The 404 page, unless the path is one a group had before a rename or a move: then, permanently, the same page at the
 * group's path today (as a project's old path leads to its pages).
 */
export async function groupPageNotFound(params: GroupPageProps["params"], subpage?: GroupSubpage): Promise<never> {
  const moved = await movedGroupPath(await sessionContext(), await groupPathOf(params));
  if (moved) permanentRedirect(groupPagePath(moved, subpage));
  notFound();
}

/**
 * "<page> · <group's full name>", plus what `more` adds, or the page's name alone for a group the visitor may not see
 * (its page answers 404 anyway).
 */
export function groupPageMetadata(page: string | null, more?: (fullPath: string) => Metadata): (props: GroupPageProps) => Promise<Metadata> {
  return async ({ params }) => {
    const view = await visibleGroup(await groupPathOf(params));
    if (!view) return { title: page ?? "Group" };
    return { ...more?.(view.group.fullPath), title: page ? `${page} · ${view.fullName}` : view.fullName };
  };
}
