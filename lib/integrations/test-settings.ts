import "server-only";
import { actingUser, type Ctx } from "@/lib/context";
import type { ChatIntegrationType } from "@/lib/db/schema";
import { UnauthorizedError, UnprocessableError } from "@/lib/errors";
import { checkEndpointLimit } from "@/lib/rate-limits/endpoint-limits";
import { pushSample } from "@/lib/webhooks/test-hooks";
import { sendChatRequest } from "./delivery";
import { requestsFor } from "./enqueue";
import { findIntegration, projectForIntegrations, settingsWith, type ChatIntegrationAttributes } from "./integrations";

/** What the settings page says when the test message went through. */
export const testSucceeded = "Connection successful.";

/**
 * "Test settings": sends GitLab's sample push (the default branch's newest commits, pushed by the caller) with the
 * settings as given over the saved ones, now, without saving them. Resolves with the page's message when every request
 * was answered 2xx; otherwise refuses (422) with what the receiver answered, or why no answer came.
 */
export async function testIntegrationSettings(ctx: Ctx, projectReference: string, type: ChatIntegrationType, given: ChatIntegrationAttributes): Promise<string> {
  const actor = actingUser(ctx);
  if (!actor) throw new UnauthorizedError();
  const view = await projectForIntegrations(ctx, projectReference);
  await checkEndpointLimit(ctx, "integrationTestsPerProjectAndUser", `project:${view.project.id}`);
  const { properties, webhook } = await settingsWith(ctx.db, type, await findIntegration(ctx.db, view.project.id, type), given, { active: true });
  const data = await pushSample(view, actor);
  if (!data) throw new UnprocessableError("Ensure the project has at least one commit.");
  const requests = requestsFor({ type, properties }, view, { event: "push", data }, ctx.now);
  if (requests.length === 0) throw new UnprocessableError("These settings send no message for pushes to the default branch.");
  for (const request of requests) {
    // Checked as an active integration's, the settings have a webhook.
    const result = await sendChatRequest(ctx.db, webhook!, request);
    if (!result.ok) throw new UnprocessableError(`Connection failed. Check your integration settings. ${result.summary}`);
  }
  return testSucceeded;
}
