import Link from "next/link";
import { DateText } from "@/components/ui/date-text";

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
      <thead>
        <tr>
          <th scope="col">Project</th>
          <th scope="col">Path</th>
          <th scope="col">Visibility</th>
          {showRole ? <th scope="col">Your role</th> : null}
          <th scope="col">Created</th>
        </tr>
      </thead>
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
