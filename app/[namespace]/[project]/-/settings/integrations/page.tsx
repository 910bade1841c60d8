import Link from "next/link";
import { ProjectHeader } from "@/components/projects/project-header";
import { TableHead } from "@/components/ui/table-head";
import { requireSessionContext } from "@/lib/auth/session";
import { getIntegrationsPage } from "@/lib/integrations/settings-page";
import { projectFullPath } from "@/lib/projects/serialize";
import { orNotFound, projectPageMetadata } from "../../../project-page";
import { routeProjectPath } from "@/lib/projects/route-path";

export const generateMetadata = projectPageMetadata("Integrations");

/** Settings › Integrations: the chat integrations and whether each is on. Maintainers and above; others get 404. */
export default async function IntegrationsPage({ params }: { params: Promise<{ namespace: string; project: string }> }) {
  const { namespace, project } = await params;
  const ctx = await requireSessionContext(`/${routeProjectPath({ namespace, project })}/-/settings/integrations`);
  const page = await orNotFound(getIntegrationsPage(ctx, routeProjectPath({ namespace, project })));
  const fullPath = projectFullPath(page.view);
  return (
    <>
      <ProjectHeader view={page.view} current="integrations" />
      <div className="section">
        <h2>Integrations</h2>
        <p className="muted">Send notifications about the project&apos;s events to your chat service.</p>
      </div>
      <table className="table">
        <caption className="visually-hidden">Chat integrations</caption>
        <TableHead columns={["Integration", "Description", "Status"]} actionsColumn />
        <tbody>
          {page.integrations.map((integration) => (
            <tr key={integration.type}>
              <td className="long-text">
                <strong>{integration.title}</strong>
              </td>
              <td className="muted long-text">{integration.description}</td>
              <td>
                {integration.active === true ? (
                  <span className="badge badge-success">Active</span>
                ) : integration.active === false ? (
                  <span className="badge">Not active</span>
                ) : (
                  <span className="badge">Not set up</span>
                )}
              </td>
              <td className="actions">
                <Link className="button button-secondary button-small" href={`/${fullPath}/-/settings/integrations/${integration.slug}/edit`} aria-label={`Configure ${integration.title}`}>
                  Configure
                </Link>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
