import Link from "next/link";
import { DateText } from "@/components/ui/date-text";
import { TableHead } from "@/components/ui/table-head";
import { accessLevelNames } from "@/lib/projects/access";
import type { ProjectView } from "@/lib/projects/projects";
import { projectFullPath } from "@/lib/projects/serialize";

/** A list of projects with the viewer's role in each. */
export function ProjectTable({ projects }: { projects: ProjectView[] }) {
  return (
    <table className="table">
      <TableHead columns={["Project", "Path", "Visibility", "Your role", "Created"]} />
      <tbody>
        {projects.map((view) => {
          const fullPath = projectFullPath(view);
          return (
            <tr key={view.project.id}>
              <td className="long-text">
                <Link href={`/${fullPath}`}>{view.project.name}</Link>
                {view.project.description ? <div className="muted">{view.project.description}</div> : null}
              </td>
              <td className="long-text">
                <code>{fullPath}</code>
              </td>
              <td>
                <span className="badge">{view.project.visibility}</span>
              </td>
              <td>{view.accessLevel === null ? "—" : (accessLevelNames[view.accessLevel] ?? "—")}</td>
              <td>
                <DateText value={view.project.createdAt} />
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
