import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { GroupForm } from "@/components/groups/group-form";
import { requireSessionContext } from "@/lib/auth/session";
import { newGroupPlace } from "@/lib/groups/groups";
import { groupPagePath } from "@/lib/groups/paths";
import { createGroupAction } from "./actions";

export const metadata: Metadata = { title: "New group" };

/** `/groups/new`, or `/groups/new?parent_id=<id>` for a subgroup; a place the visitor may not create in is the 404 page. */
export default async function NewGroupPage({ searchParams }: { searchParams: Promise<{ parent_id?: string | string[] }> }) {
  const { parent_id: parentParam } = await searchParams;
  const ctx = await requireSessionContext(`/groups/new${typeof parentParam === "string" ? `?parent_id=${encodeURIComponent(parentParam)}` : ""}`);
  const parentId = typeof parentParam === "string" && /^[1-9]\d{0,9}$/.test(parentParam) ? Number(parentParam) : undefined;
  if (parentParam !== undefined && parentId === undefined) notFound();
  const place = await newGroupPlace(ctx, parentId);
  if (!place) notFound();
  const { parent } = place;
  return (
    <>
      <div className="page-header">
        <div>
          <h1>{parent ? "New subgroup" : "New group"}</h1>
          <p className="muted">
            {parent
              ? `A subgroup of ${parent.fullName}: its members have their role in it too.`
              : "A group holds projects and subgroups, and gives its members their role in all of them."}
          </p>
        </div>
      </div>
      <GroupForm
        save={createGroupAction.bind(null, parent?.group.id ?? null)}
        parentPath={parent?.group.fullPath ?? null}
        submitLabel={parent ? "Create subgroup" : "Create group"}
        cancelHref={parent ? groupPagePath(parent.group.fullPath) : "/dashboard/groups"}
      />
    </>
  );
}
