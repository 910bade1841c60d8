import { GroupHeader } from "@/components/groups/group-header";
import { AddMemberForm } from "@/components/projects/add-member-form";
import { memberListItem } from "@/components/projects/member-list-item";
import { MemberTable } from "@/components/projects/member-table";
import { countLabel } from "@/components/ui/pagination";
import { sessionContext } from "@/lib/auth/session";
import { actingUser } from "@/lib/context";
import { groupMembersPage, type GroupMemberView } from "@/lib/groups/members";
import { canInGroup, grantableGroupRoles } from "@/lib/groups/policy";
import { suggestUsersAction } from "@/app/[namespace]/[project]/-/project_members/actions";
import { addGroupMemberAction, removeGroupMemberAction, updateGroupMemberAction } from "./actions";
import { groupPageMetadata, groupPageNotFound, groupPathOf, type GroupPageProps } from "../../group-page";

export const generateMetadata = groupPageMetadata("Members");

export default async function GroupMembersPage({ params }: GroupPageProps) {
  const ctx = await sessionContext();
  const page = await groupMembersPage(ctx, await groupPathOf(params));
  if (!page) return groupPageNotFound(params, "group_members");
  const { view, direct, inherited } = page;
  const canManage = canInGroup(view, "manageMembers");
  const listed = (item: GroupMemberView) => memberListItem(item, ctx.now);
  const viewerId = actingUser(ctx)?.id ?? null;
  return (
    <>
      <GroupHeader view={view} current="members" />
      {canManage ? (
        <AddMemberForm add={addGroupMemberAction.bind(null, view.group.id)} roles={grantableGroupRoles(view)} suggestUsers={suggestUsersAction} source="group" />
      ) : null}
      <section aria-labelledby="members-heading">
        <h2 id="members-heading">Members ({countLabel(direct.total)})</h2>
        <p className="muted">Members of this group have their role in every subgroup and project below it.</p>
        <MemberTable
          viewerId={viewerId}
          source="group"
          remove={canManage ? removeGroupMemberAction.bind(null, view.group.id) : undefined}
          edit={canManage ? { update: updateGroupMemberAction.bind(null, view.group.id), roles: grantableGroupRoles(view) } : undefined}
          members={direct.items.map(listed)}
        />
        {direct.total === null || direct.total > direct.items.length ? <p className="muted">Showing the first {direct.items.length} members.</p> : null}
      </section>
      {view.group.parentId !== null ? (
        <section aria-labelledby="inherited-heading">
          <h2 id="inherited-heading">Inherited from the groups above ({countLabel(inherited.total)})</h2>
          {inherited.items.length === 0 ? (
            <p className="empty">No members in the groups above.</p>
          ) : (
            <MemberTable viewerId={viewerId} source="group" members={inherited.items.map(listed)} />
          )}
        </section>
      ) : null}
    </>
  );
}
