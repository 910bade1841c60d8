import Link from "next/link";
import { notFound } from "next/navigation";
import { ProjectHeader } from "@/components/projects/project-header";
import { Pagination } from "@/components/ui/pagination";
import { RelativeTime } from "@/components/ui/relative-time";
import { TableHead } from "@/components/ui/table-head";
import { HookFormFields } from "@/components/webhooks/hook-form";
import { HookStatus } from "@/components/webhooks/hook-list";
import { pageFromQuery } from "@/lib/api/pagination";
import { requireSessionContext } from "@/lib/auth/session";
import { ForbiddenError } from "@/lib/errors";
import { projectFullPath } from "@/lib/projects/serialize";
import { getHookEditPage, hookFormOf } from "@/lib/webhooks/settings-page";
import { updateHookAction } from "../../actions";
import { projectPageFailure, projectPageMetadata, searchOf } from "../../../../project-page";
import { routeProjectPath } from "@/lib/projects/route-path";

export const generateMetadata = projectPageMetadata("Edit webhook");

/** A hook's settings, and its requests of the past week ("Recent events"), each with its details. */
export default async function EditWebhookPage({
  params,
  searchParams,
}: {
  params: Promise<{ namespace: string; project: string; hook_id: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { namespace, project, hook_id: hookIdText } = await params;
  const ctx = await requireSessionContext(`/${routeProjectPath({ namespace, project })}/-/hooks/${hookIdText}/edit`);
  const hookId = Number(hookIdText);
  if (!/^\d{1,10}$/.test(hookIdText) || hookId > 2_147_483_647) notFound();
  const query = await searchParams;
  const page = pageFromQuery(query.page, 20);
  let data: Awaited<ReturnType<typeof getHookEditPage>>;
  try {
    data = await getHookEditPage(ctx, routeProjectPath({ namespace, project }), hookId, page);
  } catch (error) {
    if (error instanceof ForbiddenError) notFound();
    projectPageFailure(error, (fullPath) => `/${fullPath}/-/hooks/${hookIdText}/edit${searchOf(query)}`);
  }
  const fullPath = projectFullPath(data.view);
  const { hook, logs } = data;
  return (
    <>
      <ProjectHeader view={data.view} current="webhooks" />
      <div className="section">
        <p>
          <Link href={`/${fullPath}/-/hooks`}>← Webhooks</Link>
        </p>
        <h2>
          Edit webhook <HookStatus hook={hook} />
        </h2>
        {data.hasToken ? <p className="muted">A secret token is set.</p> : null}
      </div>
      <HookFormFields form={hookFormOf(hook)} save={updateHookAction.bind(null, fullPath, hook.id)} editing savedMessage="Webhook was updated." />
      <section className="section" aria-labelledby="recent-events">
        <h3 id="recent-events">Recent events</h3>
        <p className="muted">Requests of the past 7 days.</p>
        {logs.items.length === 0 ? (
          <p className="empty">No requests have been sent yet.</p>
        ) : (
          <table className="table">
            <caption className="visually-hidden">Recent events</caption>
            <TableHead columns={["Status", "Trigger", "URL", "Elapsed time", "Request time"]} actionsColumn />
            <tbody>
              {logs.items.map((log) => (
                <tr key={log.id}>
                  <td>
                    <span className={/^2\d\d$/.test(log.responseStatus) ? "badge badge-success" : "badge badge-danger"}>{log.responseStatus}</span>
                  </td>
                  <td>{log.trigger.replace(/_hooks$/, "").replace(/_/g, " ")}</td>
                  <td className="long-text">
                    <code>{log.url}</code>
                  </td>
                  <td>{log.executionDuration.toFixed(2)} sec</td>
                  <td>
                    <RelativeTime value={log.createdAt} now={ctx.now} />
                  </td>
                  <td className="actions">
                    <Link href={`/${fullPath}/-/hooks/${hook.id}/hook_logs/${log.id}`}>View details</Link>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <Pagination basePath={`/${fullPath}/-/hooks/${hook.id}/edit`} page={page.page} perPage={page.perPage} total={logs.total} hasNext={logs.hasNext} />
      </section>
    </>
  );
}
