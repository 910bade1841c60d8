"use server";

import { z } from "zod";
import type { PayloadAttributeMapping } from "@/lib/alerts/fields";
import { alertSettingsFormSchema, integrationSaveSchema, integrationUpdateSchema } from "@/lib/alerts/form-schemas";
import {
  createIntegration,
  deleteIntegration,
  listPayloadFields,
  resetIntegrationToken,
  serializeIntegration,
  updateIntegration,
} from "@/lib/alerts/integrations";
import type { PayloadField } from "@/lib/alerts/payload-fields";
import type { SerializedIntegration } from "@/lib/alerts/settings-page";
import { updateAlertSettings } from "@/lib/alerts/settings";
import { sendTestAlert } from "@/lib/alerts/test-alert";
import { requireSessionContext } from "@/lib/auth/session";
import { actionSuccess, type ActionResult } from "@/lib/forms/action-result";
import { parseActionInput, projectPathSchema, toActionFailure } from "@/lib/forms/run-action";

const integrationIdSchema = z.number().int().positive().max(2_147_483_647);

function settingsPage(projectPath: unknown): string | undefined {
  return typeof projectPath === "string" && projectPathSchema.safeParse(projectPath).success
    ? `/${projectPath}/-/settings/operations`
    : undefined;
}

export async function createIntegrationAction(projectPath: unknown, input: unknown): Promise<ActionResult<SerializedIntegration>> {
  const ctx = await requireSessionContext(settingsPage(projectPath));
  const parsed = parseActionInput(z.object({ projectPath: projectPathSchema, input: integrationSaveSchema }), { projectPath, input });
  if (!parsed.ok) return parsed.failure;
  const { type, name, active, payloadFormat, payloadExample, payloadAttributeMapping, heartbeatIntervalSeconds, heartbeatGraceSeconds } =
    parsed.data.input;
  try {
    const created = await createIntegration(ctx, parsed.data.projectPath, {
      type,
      name,
      active,
      payloadFormat,
      heartbeatIntervalSeconds,
      heartbeatGraceSeconds,
      payloadExample,
      payloadAttributeMapping: payloadAttributeMapping as PayloadAttributeMapping | undefined,
    });
    return actionSuccess(await serializeIntegration(ctx, created));
  } catch (error) {
    return toActionFailure(error);
  }
}

export async function updateIntegrationAction(
  projectPath: unknown,
  integrationId: unknown,
  input: unknown,
): Promise<ActionResult<SerializedIntegration>> {
  const ctx = await requireSessionContext(settingsPage(projectPath));
  const parsed = parseActionInput(
    z.object({ projectPath: projectPathSchema, integrationId: integrationIdSchema, input: integrationUpdateSchema }),
    { projectPath, integrationId, input },
  );
  if (!parsed.ok) return parsed.failure;
  const { name, active, payloadFormat, payloadExample, payloadAttributeMapping, heartbeatIntervalSeconds, heartbeatGraceSeconds } = parsed.data.input;
  try {
    const updated = await updateIntegration(ctx, parsed.data.projectPath, parsed.data.integrationId, {
      name,
      active,
      payloadFormat,
      heartbeatIntervalSeconds,
      heartbeatGraceSeconds,
      payloadExample,
      payloadAttributeMapping: payloadAttributeMapping as PayloadAttributeMapping | undefined,
    });
    return actionSuccess(await serializeIntegration(ctx, updated));
  } catch (error) {
    return toActionFailure(error);
  }
}

export async function deleteIntegrationAction(projectPath: unknown, integrationId: unknown): Promise<ActionResult> {
  const ctx = await requireSessionContext(settingsPage(projectPath));
  const parsed = parseActionInput(z.object({ projectPath: projectPathSchema, integrationId: integrationIdSchema }), { projectPath, integrationId });
  if (!parsed.ok) return parsed.failure;
  try {
    await deleteIntegration(ctx, parsed.data.projectPath, parsed.data.integrationId);
    return actionSuccess();
  } catch (error) {
    return toActionFailure(error);
  }
}

export async function resetIntegrationTokenAction(projectPath: unknown, integrationId: unknown): Promise<ActionResult<SerializedIntegration>> {
  const ctx = await requireSessionContext(settingsPage(projectPath));
  const parsed = parseActionInput(z.object({ projectPath: projectPathSchema, integrationId: integrationIdSchema }), { projectPath, integrationId });
  if (!parsed.ok) return parsed.failure;
  try {
    return actionSuccess(await serializeIntegration(ctx, await resetIntegrationToken(ctx, parsed.data.projectPath, parsed.data.integrationId)));
  } catch (error) {
    return toActionFailure(error);
  }
}

export async function parsePayloadFieldsAction(projectPath: unknown, payloadExample: unknown): Promise<ActionResult<PayloadField[]>> {
  const ctx = await requireSessionContext(settingsPage(projectPath));
  const parsed = parseActionInput(z.object({ projectPath: projectPathSchema, payloadExample: z.string() }), { projectPath, payloadExample });
  if (!parsed.ok) return parsed.failure;
  try {
    return actionSuccess(await listPayloadFields(ctx, parsed.data.projectPath, parsed.data.payloadExample));
  } catch (error) {
    return toActionFailure(error);
  }
}

const inactiveIntegration = "The integration is currently inactive. Enable the integration to send the test alert.";
const invalidPayload = "Integration payload is invalid.";

/** Sends a test alert through the integration; the answers are GitLab's UI messages. */
export async function sendTestAlertAction(
  projectPath: unknown,
  integrationId: unknown,
  payloadText: unknown,
): Promise<ActionResult<{ iid: number; title: string }[]>> {
  const ctx = await requireSessionContext(settingsPage(projectPath));
  const parsed = parseActionInput(z.object({ projectPath: projectPathSchema, integrationId: integrationIdSchema, payloadText: z.string() }), {
    projectPath,
    integrationId,
    payloadText,
  });
  if (!parsed.ok) return parsed.failure;
  let payload: unknown;
  try {
    payload = JSON.parse(parsed.data.payloadText);
  } catch {
    return { ok: false, message: invalidPayload };
  }
  const object = z.record(z.string(), z.unknown()).safeParse(payload);
  if (!object.success || Array.isArray(payload)) return { ok: false, message: invalidPayload };
  try {
    const answer = await sendTestAlert(ctx, parsed.data.projectPath, parsed.data.integrationId, object.data);
    if (answer.status === 403) return { ok: false, message: inactiveIntegration };
    if (answer.status < 200 || answer.status >= 300) return { ok: false, message: invalidPayload };
    return actionSuccess(answer.body as { iid: number; title: string }[]);
  } catch (error) {
    // The box has one field: a payload over the limits is said in the notice ("Payload is too big").
    const failure = toActionFailure(error);
    return !failure.ok && failure.fieldErrors?.payload ? { ok: false, message: failure.fieldErrors.payload.join(" ") } : failure;
  }
}

export async function updateAlertSettingsAction(projectPath: unknown, input: unknown): Promise<ActionResult> {
  const ctx = await requireSessionContext(settingsPage(projectPath));
  const parsed = parseActionInput(z.object({ projectPath: projectPathSchema, input: alertSettingsFormSchema }), { projectPath, input });
  if (!parsed.ok) return parsed.failure;
  try {
    await updateAlertSettings(ctx, parsed.data.projectPath, parsed.data.input);
    return actionSuccess();
  } catch (error) {
    return toActionFailure(error);
  }
}
