import Link from "next/link";
import { NamespaceCrumbs } from "@/components/groups/namespace-crumbs";
import type { GroupView } from "@/lib/groups/groups";
import { groupPagePath } from "@/lib/groups/paths";
import { canInGroup } from "@/lib/groups/policy";

/** The group's place, name, path, visibility and tabs; Settings only for those who may change the group. */
export function GroupHeader({ view, current }: { view: GroupView; current: "overview" | "members" | "activity" | "settings" }) {
  const { group, fullName } = view;
  const parentPath = group.fullPath.split("/").slice(0, -1).join("/");
  const parentName = fullName.split(" / ").slice(0, -1).join(" / ");
  const tab = (page: "group_members" | "activity" | "edit" | undefined, key: typeof current, label: string) => (
    <Link href={groupPagePath(group.fullPath, page)} aria-current={current === key ? "page" : undefined}>
      {label}
    </Link>
  );
  return (
    <>
      <div className="breadcrumbs">
        {parentPath ? (
          <>
            <NamespaceCrumbs namespace={{ kind: "group", fullPath: parentPath, fullName: parentName }} />
            {" / "}
          </>
        ) : null}
        <Link href={groupPagePath(group.fullPath)}>{group.name}</Link>
      </div>
      <div className="page-header">
        <div>
          <h1>{group.name}</h1>
          <p className="muted">
            <code>{group.fullPath}</code> · <span className="badge">{group.visibility}</span>
          </p>
        </div>
      </div>
      <nav className="tabs" aria-label="Group">
        {tab(undefined, "overview", "Overview")}
        {tab("group_members", "members", "Members")}
        {tab("activity", "activity", "Activity")}
        {canInGroup(view, "updateGroup") ? tab("edit", "settings", "Settings") : null}
      </nav>
    </>
  );
}
