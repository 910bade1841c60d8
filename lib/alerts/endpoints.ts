import "server-only";
import { z } from "zod";
import { endpoint } from "@/lib/api/endpoint";
import { booleanParam, idSegment, integerListParam, integerParam, projectPath, stringListParam } from "@/lib/api/param-types";
import { ParameterError } from "@/lib/errors";
import { requireAtLeastOne } from "@/lib/api/request";
import { json, paginated } from "@/lib/api/respond";
import { readApiScopes, writeApiScopes } from "@/lib/api/scopes";
import { alertEntity, alertSorts, alertStatuses, getAlert, listAlerts, serializeAlert, snoozeMinutesRange, updateAlert, type AlertSnooze } from "./alerts";
import type { AssigneeReference } from "./assignees";
import { listOf, okWith } from "@/lib/api/responses";

/**
 * The alert endpoints that both the REST API (their route files) and the MCP server's tools serve: one declaration of
 * each, so a tool takes the same parameters, calls the same verb and answers the same JSON.
 */

const alertPath = { ...projectPath, alert_iid: idSegment };

/** `GET /projects/:id/alert_management/alerts`. */
export const listAlertsEndpoint = endpoint({
  response: listOf(alertEntity),
  scopes: readApiScopes,
  path: projectPath,
  paginated: true,
  params: {
    status: stringListParam.pipe(z.array(z.enum(alertStatuses))).optional(),
    // The list page's bound too: a contains-search costs the length of the pattern at every place of every text.
    search: z.string().max(255).optional(),
    // GitLab's `assigneeUsername`: one user, named as usernames are (at most 255 characters).
    assignee_username: z.string().max(255).optional(),
    // Only alerts a silence matched, or only the others.
    silenced: booleanParam.optional(),
    sort: z.enum(alertSorts).optional(),
  },
  handle: async ({ ctx, url, path, params, page }) => {
    const filters = {
      status: params.status,
      search: params.search,
      assigneeUsername: params.assignee_username || undefined,
      silenced: params.silenced,
      sort: params.sort,
    };
    const result = await listAlerts(ctx, path.id, filters, page);
    return paginated(url, page, { ...result, items: result.items.map((item) => serializeAlert(result.view, item)) });
  },
});

/** `GET /projects/:id/alert_management/alerts/:alert_iid`. */
export const getAlertEndpoint = endpoint({
  response: okWith(alertEntity),
  scopes: readApiScopes,
  path: alertPath,
  handle: async ({ ctx, path }) => {
    const details = await getAlert(ctx, path.id, path.alert_iid);
    return json(serializeAlert(details.view, details));
  },
});

/**
 * `PUT /projects/:id/alert_management/alerts/:alert_iid`: the status, the assignees (GitLab's `alertSetAssignees`,
 * replacing them: by id, by username, or both, ids first; an empty list unassigns), the snooze (`snooze_minutes`, 0
 * ending it, or `snooze_until_resolved`), or several at once.
 */
export const updateAlertEndpoint = endpoint({
  response: okWith(alertEntity),
  scopes: writeApiScopes,
  path: alertPath,
  params: {
    status: z.enum(alertStatuses).optional(),
    assignee_ids: integerListParam.optional(),
    assignee_usernames: stringListParam.optional(),
    // 0 ends the snooze; otherwise from half an hour to a week.
    snooze_minutes: integerParam
      .pipe(z.number().int().refine((minutes) => minutes === 0 || (minutes >= snoozeMinutesRange.min && minutes <= snoozeMinutesRange.max)))
      .optional(),
    snooze_until_resolved: booleanParam.optional(),
  },
  handle: async ({ ctx, path, params }) => {
    requireAtLeastOne(params, ["status", "assignee_ids", "assignee_usernames", "snooze_minutes", "snooze_until_resolved"]);
    if (params.snooze_minutes !== undefined && params.snooze_until_resolved !== undefined) {
      throw new ParameterError("snooze_minutes, snooze_until_resolved", "are mutually exclusive");
    }
    const assignees: AssigneeReference[] | undefined =
      params.assignee_ids === undefined && params.assignee_usernames === undefined
        ? undefined
        : [...(params.assignee_ids ?? []).map((id) => ({ id })), ...(params.assignee_usernames ?? []).map((username) => ({ username }))];
    const snooze: AlertSnooze | undefined =
      params.snooze_minutes !== undefined
        ? params.snooze_minutes === 0
          ? { off: true }
          : { minutes: params.snooze_minutes }
        : params.snooze_until_resolved === undefined
          ? undefined
          : params.snooze_until_resolved
            ? { untilResolved: true }
            : { off: true };
    const updated = await updateAlert(ctx, path.id, path.alert_iid, { status: params.status, assignees, snooze });
    return json(serializeAlert(updated.view, updated));
  },
});
