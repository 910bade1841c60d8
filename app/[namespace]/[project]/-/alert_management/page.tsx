import Link from "next/link";
import { Pagination } from "@/components/ui/pagination";
import { notFound } from "next/navigation";
import { z } from "zod";
import { AlertStatusControl, AlertTriage } from "@/components/alerts/alert-triage";
import { ProjectHeader } from "@/components/projects/project-header";
import { RelativeTime } from "@/components/ui/relative-time";
import { TableHead } from "@/components/ui/table-head";
import { alertSorts, listAlertsWithStatusCounts } from "@/lib/alerts/alerts";
import { alertListSortOptions, alertListTabs, alertSeverityLabels, alertStatusLabels } from "@/lib/alerts/form-schemas";
import { countLimit, pageRequest } from "@/lib/api/pagination";
import { requireSessionContext } from "@/lib/auth/session";
import { ForbiddenError } from "@/lib/errors";
import { can } from "@/lib/projects/policy";
import { projectFullPath } from "@/lib/projects/serialize";
import { updateAlertStatusAction } from "./actions";
import { projectPageFailure, projectPageMetadata, searchOf } from "../../project-page";
import { routeProjectPath } from "@/lib/projects/route-path";

export const generateMetadata = projectPageMetadata("Alerts");

const perPage = 20;

// Anything unreadable in the query falls back to the default rather than failing the page.
const querySchema = z.object({
  tab: z.enum(alertListTabs.map((tab) => tab.key) as [string, ...string[]]).catch("open"),
  search: z.string().trim().max(255).catch(""),
  assignee_username: z.string().trim().max(255).transform((value) => value.replace(/^@/, "")).catch(""),
  silenced: z.enum(["", "true", "false"]).catch(""),
  sort: z.enum(alertSorts).catch("started_at_desc"),
  page: z.coerce.number().int().min(1).max(100_000).catch(1),
});

type SearchParams = Record<string, string | string[] | undefined>;

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** A tab's count: its statuses' alerts, or that there are more than the count limit when a status has that many. */
function tabCount(counts: (number | null)[]): string {
  let total = 0;
  for (const count of counts) {
    if (count === null) return `${countLimit.toLocaleString("en-US")}+`;
    total += count;
  }
  return String(total);
}

/** The alert list (Reporter+): status tabs with counts, search, sort and pages; Developers change statuses in place. */
export default async function AlertListPage({
  params,
  searchParams,
}: {
  params: Promise<{ namespace: string; project: string }>;
  searchParams: Promise<SearchParams>;
}) {
  const { namespace, project } = await params;
  const raw = await searchParams;
  const query = querySchema.parse({ tab: first(raw.tab), search: first(raw.search), assignee_username: first(raw.assignee_username), silenced: first(raw.silenced), sort: first(raw.sort), page: first(raw.page) });
  const ctx = await requireSessionContext(`/${routeProjectPath({ namespace, project })}/-/alert_management`);
  const tab = alertListTabs.find((candidate) => candidate.key === query.tab) ?? alertListTabs[0];
  let result: Awaited<ReturnType<typeof listAlertsWithStatusCounts>>;
  try {
    result = await listAlertsWithStatusCounts(
      ctx,
      routeProjectPath({ namespace, project }),
      {
        status: [...tab.statuses],
        search: query.search || undefined,
        assigneeUsername: query.assignee_username || undefined,
        silenced: query.silenced === "" ? undefined : query.silenced === "true",
        sort: query.sort,
      },
      pageRequest({ page: query.page, per_page: perPage }),
    );
  } catch (error) {
    if (error instanceof ForbiddenError) notFound();
    projectPageFailure(error, (fullPath) => `/${fullPath}/-/alert_management${searchOf(raw)}`);
  }
  const { view, items, total, hasNext, statusCounts } = result;
  const fullPath = projectFullPath(view);
  const listPath = `/${fullPath}/-/alert_management`;
  const canTriage = can(view, "triageAlerts");
  const updateStatus = updateAlertStatusAction.bind(null, fullPath);
  const href = (changes: Partial<typeof query>) => {
    const next = { ...query, ...changes };
    const search = new URLSearchParams();
    if (next.tab !== "open") search.set("tab", next.tab);
    if (next.search) search.set("search", next.search);
    if (next.assignee_username) search.set("assignee_username", next.assignee_username);
    if (next.silenced) search.set("silenced", next.silenced);
    if (next.sort !== "started_at_desc") search.set("sort", next.sort);
    if (next.page > 1) search.set("page", String(next.page));
    const text = search.toString();
    return text ? `${listPath}?${text}` : listPath;
  };

  return (
    <>
      <ProjectHeader view={view} current="alerts" />
      <h2>Alerts</h2>
      <p>
        <Link href={`${listPath}/silences`}>Silences</Link>: maintenance windows that hold matching alerts&apos; notifications.
      </p>
      <nav className="tabs" aria-label="Alert status">
        {alertListTabs.map((candidate) => (
          <Link key={candidate.key} href={href({ tab: candidate.key, page: 1 })} aria-current={candidate.key === tab.key ? "page" : undefined}>
            {candidate.label} <span className="tab-count">{tabCount(candidate.statuses.map((status) => statusCounts[status]))}</span>
          </Link>
        ))}
      </nav>
      <form method="get" action={listPath} className="inline-form alert-filters" role="search" aria-label="Filter alerts">
        {tab.key !== "open" ? <input type="hidden" name="tab" value={tab.key} /> : null}
        <div className="field">
          <label htmlFor="alert-search">Search alerts</label>
          <input id="alert-search" type="search" name="search" defaultValue={query.search} placeholder="Title, description, service or tool" />
        </div>
        <div className="field">
          <label htmlFor="alert-assignee">Assignee</label>
          <input id="alert-assignee" type="search" name="assignee_username" defaultValue={query.assignee_username} placeholder="Username" />
        </div>
        <div className="field">
          <label htmlFor="alert-silenced">Silenced</label>
          <select id="alert-silenced" name="silenced" defaultValue={query.silenced}>
            <option value="">Any</option>
            <option value="true">Silenced</option>
            <option value="false">Not silenced</option>
          </select>
        </div>
        <div className="field">
          <label htmlFor="alert-sort">Sort by</label>
          <select id="alert-sort" name="sort" defaultValue={query.sort}>
            {alertListSortOptions.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className="button button-secondary">
          Apply
        </button>
      </form>
      <AlertTriage update={updateStatus} listedStatuses={tab.statuses}>
      {items.length === 0 ? (
        <p className="empty">{total === 0 && !query.search && !query.assignee_username && !query.silenced ? "No alerts to display." : "No alerts match your search."}</p>
      ) : (
        <table className="table alert-table">
          <caption className="visually-hidden">
            {tab.label} alerts, page {query.page}
            {total === null ? "" : ` of ${Math.max(1, Math.ceil(total / perPage))}`}
          </caption>
          <TableHead columns={["Severity", "Start time", "Alert", "Events", "Incident", "Assignee", "Status"]} />
          <tbody>
            {items.map(({ alert, issueIid, assignees }) => (
              <tr key={alert.id}>
                <td>
                  <span className={`severity severity-${alert.severity}`}>{alertSeverityLabels[alert.severity]}</span>
                </td>
                <td>
                  <RelativeTime value={alert.startedAt} now={ctx.now} />
                </td>
                <td className="long-text">
                  <Link href={`${listPath}/${alert.iid}/details`}>
                    #{alert.iid} {alert.title}
                  </Link>
                  {alert.silencedById !== null ? (
                    <>
                      {" "}
                      <span className="badge" title={`Silenced by silence ${alert.silencedById}`}>
                        Silenced
                      </span>
                    </>
                  ) : null}
                  {alert.snoozedUntilResolved || (alert.snoozedUntil !== null && alert.snoozedUntil > ctx.now) ? (
                    <>
                      {" "}
                      <span className="badge">Snoozed</span>
                    </>
                  ) : null}
                </td>
                <td>{alert.eventCount}</td>
                <td>{issueIid === null ? <span className="muted">None</span> : <Link href={`/${fullPath}/-/issues/${issueIid}`}>Incident #{issueIid}</Link>}</td>
                <td>
                  {assignees.length === 0 ? (
                    <span className="muted">Unassigned</span>
                  ) : (
                    assignees.map((user, index) => (
                      <span key={user.id}>
                        {index > 0 ? ", " : null}
                        <Link href={`/${user.username}`}>{user.name}</Link>
                      </span>
                    ))
                  )}
                </td>
                <td>
                  {canTriage ? (
                    <AlertStatusControl key={`${alert.id}-${alert.status}`} iid={alert.iid} status={alert.status} />
                  ) : (
                    alertStatusLabels[alert.status]
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      </AlertTriage>
      <Pagination page={query.page} perPage={perPage} total={total} hasNext={hasNext} href={(page) => href({ page })} />
    </>
  );
}
