import Link from "next/link";
import { notFound } from "next/navigation";
import { z } from "zod";
import { DeleteSilenceButton, SilenceForm } from "@/components/alerts/silences";
import { ProjectHeader } from "@/components/projects/project-header";
import { Pagination } from "@/components/ui/pagination";
import { TableHead } from "@/components/ui/table-head";
import { listSilences, serializeSilence } from "@/lib/alerts/silences";
import { pageRequest } from "@/lib/api/pagination";
import { requireSessionContext } from "@/lib/auth/session";
import { ForbiddenError } from "@/lib/errors";
import { can } from "@/lib/projects/policy";
import { routeProjectPath } from "@/lib/projects/route-path";
import { projectFullPath } from "@/lib/projects/serialize";
import { createSilenceAction, deleteSilenceAction } from "../actions";
import { projectPageFailure, projectPageMetadata, searchOf } from "../../../project-page";

export const generateMetadata = projectPageMetadata("Alert silences");

const perPage = 20;
const querySchema = z.object({ page: z.coerce.number().int().min(1).max(100_000).catch(1) });

const stateLabels = { active: "Active", pending: "Pending", expired: "Expired" } as const;
const stateBadges = { active: "badge badge-success", pending: "badge", expired: "badge" } as const;

function exactTime(iso: string): string {
  return iso.replace("T", " ").replace(/\.\d{3}Z$/, " UTC");
}

/** The silences of a project (Reporter+): what they match and when; Maintainers create and delete them. */
export default async function AlertSilencesPage({
  params,
  searchParams,
}: {
  params: Promise<{ namespace: string; project: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { namespace, project } = await params;
  const raw = await searchParams;
  const query = querySchema.parse({ page: Array.isArray(raw.page) ? raw.page[0] : raw.page });
  const ctx = await requireSessionContext(`/${routeProjectPath({ namespace, project })}/-/alert_management/silences`);
  let result: Awaited<ReturnType<typeof listSilences>>;
  try {
    result = await listSilences(ctx, routeProjectPath({ namespace, project }), pageRequest({ page: query.page, per_page: perPage }));
  } catch (error) {
    if (error instanceof ForbiddenError) notFound();
    projectPageFailure(error, (fullPath) => `/${fullPath}/-/alert_management/silences${searchOf(raw)}`);
  }
  const { view, items, total, hasNext } = result;
  const fullPath = projectFullPath(view);
  const listPath = `/${fullPath}/-/alert_management`;
  const canManage = can(view, "manageAlertSilences");
  const remove = deleteSilenceAction.bind(null, fullPath);

  return (
    <>
      <ProjectHeader view={view} current="alerts" />
      <p className="breadcrumbs">
        <Link href={listPath}>Alerts</Link> / Silences
      </p>
      <h2>Silences</h2>
      <p>
        Alerts a silence matches while it is active are recorded and counted, but open no incident and notify nobody. When
        the silence ends, those still triggered notify once. See <Link href={`${listPath}?silenced=true`}>silenced alerts</Link>.
      </p>
      {items.length === 0 ? (
        <p className="empty">No silences.</p>
      ) : (
        <table className="table">
          <caption className="visually-hidden">Silences, page {query.page}</caption>
          <TableHead columns={canManage ? ["ID", "Matchers", "When", "State", "Reason", ""] : ["ID", "Matchers", "When", "State", "Reason"]} />
          <tbody>
            {items.map((item) => {
              const silence = serializeSilence(item, ctx.now);
              return (
                <tr key={silence.id} id={`silence-${silence.id}`}>
                  <td>{silence.id}</td>
                  <td className="long-text">
                    <ul className="silence-matchers">
                      {silence.matchers.map((matcher, index) => (
                        <li key={index}>{matcher}</li>
                      ))}
                    </ul>
                  </td>
                  <td>
                    {silence.recurrence
                      ? `Every ${silence.recurrence.days.join(", ")}, ${silence.recurrence.start_time}–${silence.recurrence.end_time} (${silence.recurrence.time_zone})`
                      : `${exactTime(silence.starts_at!)} – ${exactTime(silence.ends_at!)}`}
                  </td>
                  <td>
                    <span className={stateBadges[silence.state]}>{stateLabels[silence.state]}</span>
                  </td>
                  <td className="long-text">
                    {silence.reason}
                    {silence.author ? <span className="muted"> · @{silence.author.username}</span> : null}
                  </td>
                  {canManage ? (
                    <td>
                      <DeleteSilenceButton silenceId={silence.id} remove={remove} />
                    </td>
                  ) : null}
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <Pagination page={query.page} perPage={perPage} total={total} hasNext={hasNext} href={(page) => (page > 1 ? `${listPath}/silences?page=${page}` : `${listPath}/silences`)} />
      {canManage ? <SilenceForm create={createSilenceAction.bind(null, fullPath)} /> : null}
    </>
  );
}
