import { notFound } from "next/navigation";
import { DeleteGroup } from "@/components/groups/delete-group";
import { GroupForm } from "@/components/groups/group-form";
import { GroupHeader } from "@/components/groups/group-header";
import { groupPagePath } from "@/lib/groups/paths";
import { canInGroup } from "@/lib/groups/policy";
import { deleteGroupAction, updateGroupAction } from "./actions";
import { groupPageMetadata, loadGroupPage, type GroupPageProps } from "../../group-page";

export const generateMetadata = groupPageMetadata("Settings");

/** The group's settings: its Owners' alone; anyone else finds the 404 page, as GitLab answers them. */
export default async function GroupSettingsPage({ params }: GroupPageProps) {
  const view = await loadGroupPage(params, "edit");
  if (!canInGroup(view, "updateGroup")) notFound();
  const { group, fullName } = view;
  const parentPath = group.fullPath.includes("/") ? group.fullPath.slice(0, group.fullPath.lastIndexOf("/")) : null;
  return (
    <>
      <GroupHeader view={view} current="settings" />
      <h2>General settings</h2>
      <GroupForm
        save={updateGroupAction.bind(null, group.id)}
        initial={{ name: group.name, path: group.path, visibility: group.visibility, description: group.description ?? "" }}
        parentPath={parentPath}
        submitLabel="Save changes"
        cancelHref={groupPagePath(group.fullPath)}
      />
      {canInGroup(view, "removeGroup") ? <DeleteGroup fullName={fullName} remove={deleteGroupAction.bind(null, group.id)} /> : null}
    </>
  );
}
