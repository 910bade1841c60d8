import Link from "next/link";
import { notFound } from "next/navigation";
import { IntegrationFormFields } from "@/components/integrations/integration-form";
import { ProjectHeader } from "@/components/projects/project-header";
import { requireSessionContext } from "@/lib/auth/session";
import { chatIntegrations, chatIntegrationSlugs, integrationTypeOfSlug } from "@/lib/integrations/catalog";
import { triggersOf } from "@/lib/integrations/form-schemas";
import { getIntegrationEditPage } from "@/lib/integrations/settings-page";
import { projectFullPath } from "@/lib/projects/serialize";
import { saveIntegrationAction, testIntegrationAction } from "../../actions";
import { orNotFound, projectPageMetadata } from "../../../../../project-page";
import { routeProjectPath } from "@/lib/projects/route-path";

/** "Slack notifications · Integrations · <project>". */
export async function generateMetadata(props: { params: Promise<{ namespace: string; project: string; slug: string }> }) {
  const type = integrationTypeOfSlug((await props.params).slug);
  return projectPageMetadata(type ? `${chatIntegrations[type].title} · Integrations` : "Integrations")(props);
}

/** One integration's settings, with "Test settings". Maintainers and above; others, and unknown integrations, get 404. */
export default async function IntegrationEditPage({ params }: { params: Promise<{ namespace: string; project: string; slug: string }> }) {
  const { namespace, project, slug } = await params;
  const ctx = await requireSessionContext(`/${routeProjectPath({ namespace, project })}/-/settings/integrations/${slug}/edit`);
  const type = chatIntegrationSlugs.includes(slug) ? integrationTypeOfSlug(slug) : null;
  if (!type) notFound();
  const page = await orNotFound(getIntegrationEditPage(ctx, routeProjectPath({ namespace, project }), type));
  const fullPath = projectFullPath(page.view);
  const definition = chatIntegrations[type];
  return (
    <>
      <ProjectHeader view={page.view} current="integrations" />
      <div className="section">
        <p>
          <Link href={`/${fullPath}/-/settings/integrations`}>← Integrations</Link>
        </p>
        <h2>{definition.title}</h2>
        <p className="muted">{definition.description}</p>
      </div>
      <IntegrationFormFields
        form={page.form}
        shows={{
          username: definition.username,
          channels: definition.channels,
          labels: definition.labels,
          notifyOnlyBrokenPipelines: definition.settableProperties.includes("notify_only_broken_pipelines"),
        }}
        triggers={triggersOf(type)}
        webhookExample={definition.webhookExample}
        hasWebhook={page.hasWebhook}
        save={saveIntegrationAction.bind(null, fullPath, slug)}
        test={testIntegrationAction.bind(null, fullPath, slug)}
      />
    </>
  );
}
