import { AddMemberForm } from "@/components/projects/add-member-form";
import { memberListItem } from "@/components/projects/member-list-item";
import { MemberTable } from "@/components/projects/member-table";
import { ProjectHeader } from "@/components/projects/project-header";
import { pageRequest } from "@/lib/api/pagination";
import { sessionContext } from "@/lib/auth/session";
import { actingUser } from "@/lib/context";
import { listMembers } from "@/lib/projects/members";
import { can, grantableRoles } from "@/lib/projects/policy";
import { projectFullPath } from "@/lib/projects/serialize";
import { addMemberAction, removeMemberAction, suggestUsersAction, updateMemberAction } from "./actions";
import { projectPageFailure, projectPageMetadata } from "../../project-page";
import { countLabel } from "@/components/ui/pagination";
import { routeProjectPath } from "@/lib/projects/route-path";

export const generateMetadata = projectPageMetadata("Members");

export default async function ProjectMembersPage({ params }: { params: Promise<{ namespace: string; project: string }> }) {
  const { namespace, project } = await params;
  const ctx = await sessionContext();
  const reference = routeProjectPath({ namespace, project });
  let members: Awaited<ReturnType<typeof listMembers>>;
  try {
    members = await listMembers(ctx, reference, pageRequest({ per_page: 100 }));
  } catch (error) {
    projectPageFailure(error, (fullPath) => `/${fullPath}/-/project_members`);
  }
  const { view, items, total } = members;
  const fullPath = projectFullPath(view);
  const canManage = can(view, "manageMembers");
  return (
    <>
      <ProjectHeader view={view} current="members" />
      {canManage ? (
        <AddMemberForm add={addMemberAction.bind(null, fullPath)} roles={grantableRoles(view)} suggestUsers={suggestUsersAction} />
      ) : null}
      <section aria-labelledby="members-heading">
        <h2 id="members-heading">Members ({countLabel(total)})</h2>
        <MemberTable
          viewerId={actingUser(ctx)?.id ?? null}
          remove={canManage ? removeMemberAction.bind(null, fullPath) : undefined}
          edit={canManage ? { update: updateMemberAction.bind(null, fullPath), roles: grantableRoles(view) } : undefined}
          members={items.map((item) => memberListItem(item, ctx.now))}
        />
        {total === null || total > items.length ? <p className="muted">Showing the first {items.length} members.</p> : null}
      </section>
    </>
  );
}
