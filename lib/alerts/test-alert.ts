import "server-only";
import type { Ctx } from "@/lib/context";
import { alertIntegrations } from "@/lib/db/schema";
import { and, eq } from "drizzle-orm";
import { NotFoundError, UnprocessableError, ValidationError } from "@/lib/errors";
import { getProjectWithAbility } from "@/lib/projects/projects";
import { deepSizeProblem } from "./deep-size";
import { deepSizeMessages } from "./integrations";
import { applyPayload, type ReceiverAnswer } from "./receive";

export const heartbeatTestAlertRefused = "A heartbeat integration takes pings, not alerts: it cannot send a test alert.";

/**
 * `POST …/integrations/:id/test_alert` (Developer+): the payload goes through the same processing as the receiver
 * and gets the same answer; an inactive integration refuses it with 403, as GitLab's UI reports. A payload over the
 * receiver's limits is refused as invalid input. A heartbeat takes pings, never alerts (its notify URL refuses them
 * too), so it is refused with 422 whatever the payload: a test alert would open an alert its pings never resolve.
 */
export async function sendTestAlert(
  ctx: Ctx,
  projectReference: string,
  integrationId: number,
  payload: Record<string, unknown>,
): Promise<ReceiverAnswer> {
  const view = await getProjectWithAbility(ctx, projectReference, "sendTestAlerts");
  const problem = deepSizeProblem(payload);
  if (problem) throw new ValidationError({ payload: [deepSizeMessages[problem]] });
  const [integration] = await ctx.db
    .select()
    .from(alertIntegrations)
    .where(and(eq(alertIntegrations.projectId, view.project.id), eq(alertIntegrations.id, integrationId)));
  if (!integration) throw new NotFoundError("Integration");
  if (integration.type === "heartbeat") throw new UnprocessableError(heartbeatTestAlertRefused);
  if (!integration.active) {
    return { status: 403, body: { message: "The integration is currently inactive. Enable the integration to send the test alert." } };
  }
  return applyPayload(ctx.db, integration, payload, ctx.now);
}
