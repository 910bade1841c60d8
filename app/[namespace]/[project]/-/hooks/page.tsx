import { notFound } from "next/navigation";
import { ProjectHeader } from "@/components/projects/project-header";
import { HookFormFields } from "@/components/webhooks/hook-form";
import { HookList } from "@/components/webhooks/hook-list";
import { requireSessionContext } from "@/lib/auth/session";
import { ForbiddenError } from "@/lib/errors";
import { projectFullPath } from "@/lib/projects/serialize";
import { emptyHookForm } from "@/lib/webhooks/form-schemas";
import { getWebhooksPage, type SerializedHook } from "@/lib/webhooks/settings-page";
import { createHookAction, deleteHookAction, testHookAction } from "./actions";
import { projectPageFailure, projectPageMetadata } from "../../project-page";
import { routeProjectPath } from "@/lib/projects/route-path";

export const generateMetadata = projectPageMetadata("Webhook settings");

const eventLabels: [keyof SerializedHook, string][] = [
  ["push_events", "Push events"],
  ["tag_push_events", "Tag push events"],
  ["issues_events", "Issue events"],
  ["confidential_issues_events", "Confidential issue events"],
  ["note_events", "Comments"],
  ["confidential_note_events", "Confidential comments"],
  ["member_events", "Member events"],
  ["milestone_events", "Milestone events"],
];

/** Settings › Webhooks: add a hook, and the project's hooks with their state. Maintainers and above; others get 404. */
export default async function WebhooksPage({ params }: { params: Promise<{ namespace: string; project: string }> }) {
  const { namespace, project } = await params;
  const ctx = await requireSessionContext(`/${routeProjectPath({ namespace, project })}/-/hooks`);
  let page: Awaited<ReturnType<typeof getWebhooksPage>>;
  try {
    page = await getWebhooksPage(ctx, routeProjectPath({ namespace, project }));
  } catch (error) {
    if (error instanceof ForbiddenError) notFound();
    projectPageFailure(error, (fullPath) => `/${fullPath}/-/hooks`);
  }
  const fullPath = projectFullPath(page.view);
  return (
    <>
      <ProjectHeader view={page.view} current="webhooks" />
      <div className="section">
        <h2>Webhooks</h2>
        <p className="muted">Webhooks send a POST request to a URL of yours when something happens in the project.</p>
      </div>
      <section className="section" aria-labelledby="add-webhook">
        <h3 id="add-webhook">Add new webhook</h3>
        <HookFormFields form={emptyHookForm} save={createHookAction.bind(null, fullPath)} editing={false} savedMessage="Webhook was created." />
      </section>
      <section className="section" aria-labelledby="project-hooks">
        <h3 id="project-hooks">Project Hooks ({page.hooks.length})</h3>
        <HookList
          hooks={page.hooks.map((hook) => ({
            id: hook.id,
            url: hook.url,
            name: hook.name,
            alert_status: hook.alert_status,
            disabled_until: hook.disabled_until,
            events: eventLabels.filter(([key]) => hook[key] === true).map(([, label]) => label),
          }))}
          hooksPath={`/${fullPath}/-/hooks`}
          actions={{ test: testHookAction.bind(null, fullPath), remove: deleteHookAction.bind(null, fullPath) }}
        />
      </section>
    </>
  );
}
