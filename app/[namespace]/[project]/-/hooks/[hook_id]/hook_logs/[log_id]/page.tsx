import Link from "next/link";
import { notFound } from "next/navigation";
import { ProjectHeader } from "@/components/projects/project-header";
import { RelativeTime } from "@/components/ui/relative-time";
import { ResendButton } from "@/components/webhooks/hook-list";
import { requireSessionContext } from "@/lib/auth/session";
import { ForbiddenError } from "@/lib/errors";
import { projectFullPath } from "@/lib/projects/serialize";
import { getHookLogPage } from "@/lib/webhooks/settings-page";
import { resendHookLogAction } from "../../../actions";
import { projectPageFailure, projectPageMetadata } from "../../../../../project-page";
import { routeProjectPath } from "@/lib/projects/route-path";

export const generateMetadata = projectPageMetadata("Webhook request details");

/** A scrollable block of text: a named region, reachable by keyboard so it can be scrolled without a mouse. */
function Block({ label, children }: { label: string; children: string }) {
  return (
    <pre className="payload" role="region" aria-label={label} tabIndex={0}>
      {children}
    </pre>
  );
}

/** The request or the response: its headers, then its body. */
function Exchange({ title, headers, body }: { title: "Request" | "Response"; headers: Record<string, string>; body: string }) {
  const id = `${title.toLowerCase()}-heading`;
  return (
    <section className="section" aria-labelledby={id}>
      <h3 id={id}>{title}</h3>
      <h4>Headers</h4>
      <Block label={`${title} headers`}>
        {Object.entries(headers)
          .map(([name, value]) => `${name}: ${value}`)
          .join("\n")}
      </Block>
      <h4>Body</h4>
      <Block label={`${title} body`}>{body}</Block>
    </section>
  );
}

/** One request sent to a hook: what was sent, what came back, and Resend. */
export default async function HookLogPage({ params }: { params: Promise<{ namespace: string; project: string; hook_id: string; log_id: string }> }) {
  const { namespace, project, hook_id: hookIdText, log_id: logIdText } = await params;
  const ctx = await requireSessionContext(`/${routeProjectPath({ namespace, project })}/-/hooks/${hookIdText}/hook_logs/${logIdText}`);
  if (!/^\d{1,10}$/.test(hookIdText) || Number(hookIdText) > 2_147_483_647 || !/^\d{1,15}$/.test(logIdText)) notFound();
  let data: Awaited<ReturnType<typeof getHookLogPage>>;
  try {
    data = await getHookLogPage(ctx, routeProjectPath({ namespace, project }), Number(hookIdText), Number(logIdText));
  } catch (error) {
    if (error instanceof ForbiddenError) notFound();
    projectPageFailure(error, (fullPath) => `/${fullPath}/-/hooks/${hookIdText}/hook_logs/${logIdText}`);
  }
  const fullPath = projectFullPath(data.view);
  const { hook, log } = data;
  return (
    <>
      <ProjectHeader view={data.view} current="webhooks" />
      <div className="section">
        <p>
          <Link href={`/${fullPath}/-/hooks/${hook.id}/edit`}>← Edit webhook</Link>
        </p>
        <h2>Request details</h2>
        <ResendButton resend={resendHookLogAction.bind(null, fullPath, hook.id, log.id)} />
        <dl className="details">
          <dt>Response status</dt>
          <dd>{log.responseStatus}</dd>
          <dt>Trigger</dt>
          <dd>{log.trigger}</dd>
          <dt>URL</dt>
          <dd>
            <code>{log.url}</code>
          </dd>
          <dt>Elapsed time</dt>
          <dd>{log.executionDuration.toFixed(2)} sec</dd>
          <dt>Request time</dt>
          <dd>
            <RelativeTime value={log.createdAt} now={ctx.now} />
          </dd>
          {log.internalErrorMessage ? (
            <>
              <dt>Error</dt>
              <dd>{log.internalErrorMessage}</dd>
            </>
          ) : null}
        </dl>
      </div>
      <Exchange title="Request" headers={log.requestHeaders} body={JSON.stringify(log.requestData, null, 2)} />
      <Exchange title="Response" headers={log.responseHeaders} body={log.responseBody || "(empty)"} />
    </>
  );
}
