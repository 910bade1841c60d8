"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { requireSessionContext } from "@/lib/auth/session";
import { actionSuccess, type ActionResult } from "@/lib/forms/action-result";
import { parseActionInput, projectPathSchema, toActionFailure } from "@/lib/forms/run-action";
import { commentFormSchema, newIssueFormSchema } from "@/lib/issues/form-schemas";
import { createIssue, updateIssue } from "@/lib/issues/issues";
import { createNote } from "@/lib/issues/notes";

const iidSchema = z.number().int().positive();

function issuesPage(projectPath: unknown): string | undefined {
  return typeof projectPath === "string" && projectPathSchema.safeParse(projectPath).success ? `/${projectPath}/-/issues` : undefined;
}

export async function createIssueAction(projectPath: unknown, input: unknown): Promise<ActionResult<{ iid: number }>> {
  const ctx = await requireSessionContext(issuesPage(projectPath));
  const project = parseActionInput(projectPathSchema, projectPath);
  if (!project.ok) return project.failure;
  const parsed = parseActionInput(newIssueFormSchema, input);
  if (!parsed.ok) return parsed.failure;
  try {
    const { issue } = await createIssue(ctx, project.data, {
      title: parsed.data.title,
      description: parsed.data.description?.trim() ? parsed.data.description : null,
      confidential: parsed.data.confidential ?? false,
    });
    revalidatePath(`/${project.data}/-/issues`);
    return actionSuccess({ iid: issue.iid });
  } catch (error) {
    return toActionFailure(error);
  }
}

export async function addCommentAction(projectPath: unknown, iid: unknown, input: unknown): Promise<ActionResult> {
  const ctx = await requireSessionContext(issuesPage(projectPath));
  const target = parseActionInput(z.object({ projectPath: projectPathSchema, iid: iidSchema }), { projectPath, iid });
  if (!target.ok) return target.failure;
  const parsed = parseActionInput(commentFormSchema, input);
  if (!parsed.ok) return parsed.failure;
  try {
    await createNote(ctx, target.data.projectPath, target.data.iid, { body: parsed.data.body, internal: parsed.data.internal ?? false });
    revalidatePath(`/${target.data.projectPath}/-/issues/${target.data.iid}`);
    return actionSuccess();
  } catch (error) {
    return toActionFailure(error);
  }
}

export async function setIssueStateAction(projectPath: unknown, iid: unknown, stateEvent: unknown): Promise<ActionResult> {
  const ctx = await requireSessionContext(issuesPage(projectPath));
  const parsed = parseActionInput(z.object({ projectPath: projectPathSchema, iid: iidSchema, stateEvent: z.enum(["close", "reopen"]) }), {
    projectPath,
    iid,
    stateEvent,
  });
  if (!parsed.ok) return parsed.failure;
  try {
    await updateIssue(ctx, parsed.data.projectPath, parsed.data.iid, { stateEvent: parsed.data.stateEvent });
    revalidatePath(`/${parsed.data.projectPath}/-/issues/${parsed.data.iid}`);
    return actionSuccess();
  } catch (error) {
    return toActionFailure(error);
  }
}
