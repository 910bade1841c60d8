import Link from "next/link";
import { TableHead } from "@/components/ui/table-head";
import type { GroupView } from "@/lib/groups/groups";
import { groupPagePath } from "@/lib/groups/paths";
import { accessLevelNames } from "@/lib/projects/access";

/** A list of groups with the viewer's role in each (direct or from a group above). */
export function GroupTable({ groups }: { groups: GroupView[] }) {
  return (
    <table className="table">
      <TableHead columns={["Group", "Path", "Visibility", "Your role"]} />
      <tbody>
        {groups.map(({ group, fullName, accessLevel }) => (
          <tr key={group.id}>
            <td className="long-text">
              <Link href={groupPagePath(group.fullPath)}>{fullName}</Link>
              {group.description ? <div className="muted">{group.description}</div> : null}
            </td>
            <td className="long-text">
              <code>{group.fullPath}</code>
            </td>
            <td>
              <span className="badge">{group.visibility}</span>
            </td>
            <td>{accessLevel === null ? "—" : (accessLevelNames[accessLevel] ?? "—")}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
