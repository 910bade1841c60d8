import Link from "next/link";
import { DateText } from "@/components/ui/date-text";
import { TableHead } from "@/components/ui/table-head";

export interface ProjectListItem {
  id: number;
  name: string;
  fullPath: string;
  visibility: string;
  description: string | null;
  role: string | null;
  createdAt: Date;
}

export function ProjectTable({ projects, showRole = true }: { projects: ProjectListItem[]; showRole?: boolean }) {
  return (
    <table className="table">
      <TableHead columns={["Project", "Path", "Visibility", showRole && "Your role", "Created"]} />
      <tbody>
        {projects.map((project) => (
          <tr key={project.id}>
            <td>
              <Link href={`/${project.fullPath}`}>{project.name}</Link>
              {project.description ? <div className="muted">{project.description}</div> : null}
            </td>
            <td>
              <code>{project.fullPath}</code>
            </td>
            <td>
              <span className="badge">{project.visibility}</span>
            </td>
            {showRole ? <td>{project.role ?? "—"}</td> : null}
            <td>
              <DateText value={project.createdAt} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
