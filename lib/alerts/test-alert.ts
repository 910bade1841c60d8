import "server-only";
import { z } from "zod";
import { entity } from "@/lib/api/entities";
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
/**
 * What a test alert answers: what the integration's receiver answers the payload, in the format it was read in (the
 * alerts recorded, or the monitoring tool's own acknowledgement).
 */
export const testAlertAnswerEntity = entity(
  "TestAlertAnswer",
  "The receiver's answer to the payload: the alerts it recorded, or the monitoring tool's own acknowledgement",
  z.union([
    z.array(z.strictObject({ iid: z.number().int(), title: z.string() })),
    z.strictObject({ message: z.string() }),
    z.strictObject({ result: z.string(), requestId: z.string() }),
    z.strictObject({ status: z.literal("success"), message: z.string(), dedup_key: z.unknown() }),
  ]),
);

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
