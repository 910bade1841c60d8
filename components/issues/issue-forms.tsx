"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { useForm } from "react-hook-form";
import { useServerErrors } from "@/components/ui/use-server-errors";
import { FormFailureNotice } from "@/components/ui/form-failure";
import { Notice } from "@/components/ui/notice";
import { TextField } from "@/components/ui/text-field";
import type { ActionResult } from "@/lib/forms/action-result";
import { commentFormSchema, newIssueFormSchema, type CommentForm as CommentValues, type NewIssueForm as NewIssueValues } from "@/lib/issues/form-schemas";

/** Opens an issue and goes to its page. */
export function NewIssueForm({ create, issuesPath }: { create: (values: NewIssueValues) => Promise<ActionResult<{ iid: number }>>; issuesPath: string }) {
  const router = useRouter();
  const { register, handleSubmit, formState, setError, setFocus } = useForm<NewIssueValues>({
    resolver: zodResolver(newIssueFormSchema),
    defaultValues: { title: "", description: "", confidential: false },
  });
  const { failure, report, clear } = useServerErrors({ setError, setFocus }, ["title", "description"]);

  async function onSubmit(values: NewIssueValues) {
    clear();
    const result = await create(values);
    if (!result.ok) {
      report(result);
      return;
    }
    router.push(`${issuesPath}/${result.data.iid}`);
  }

  return (
    <form className="stack card" onSubmit={handleSubmit(onSubmit)} noValidate aria-labelledby="new-issue-heading">
      <h2 id="new-issue-heading" style={{ margin: 0 }}>
        New issue
      </h2>
      <FormFailureNotice failure={failure} />
      <TextField label="Title" registration={register("title")} error={formState.errors.title?.message} autoComplete="off" />
      <TextField label="Description" registration={register("description")} error={formState.errors.description?.message} multiline />
      <label className="choice">
        <input type="checkbox" {...register("confidential")} />
        <span className="choice-label">Confidential: only project members with Reporter access or more, and you, can see it.</span>
      </label>
      <div className="form-actions">
        <button type="submit" className="button" disabled={formState.isSubmitting}>
          Create issue
        </button>
      </div>
    </form>
  );
}

/** Adds a comment and refreshes the page to show it; `allowInternal` offers GitLab's internal-note checkbox. */
export function CommentForm({ comment, allowInternal }: { comment: (values: CommentValues) => Promise<ActionResult>; allowInternal: boolean }) {
  const router = useRouter();
  const { register, handleSubmit, formState, setError, setFocus, reset } = useForm<CommentValues>({
    resolver: zodResolver(commentFormSchema),
    defaultValues: { body: "", internal: false },
  });
  const { failure, report, clear } = useServerErrors({ setError, setFocus }, ["body"]);

  async function onSubmit(values: CommentValues) {
    clear();
    const result = await comment(values);
    if (!result.ok) {
      report(result);
      return;
    }
    reset();
    router.refresh();
  }

  return (
    <form className="stack" onSubmit={handleSubmit(onSubmit)} noValidate aria-label="Add a comment">
      <FormFailureNotice failure={failure} />
      <TextField label="Comment" registration={register("body")} error={formState.errors.body?.message} multiline />
      {allowInternal ? (
        <label className="choice">
          <input type="checkbox" {...register("internal")} />
          <span className="choice-label">Make this an internal note</span>
          <span className="choice-description">Internal notes are only visible to members with the role of Reporter or higher.</span>
        </label>
      ) : null}
      <div className="form-actions">
        <button type="submit" className="button" disabled={formState.isSubmitting}>
          Comment
        </button>
      </div>
    </form>
  );
}

/** Close or reopen, as the issue's state calls for. */
export function IssueStateButton({ state, change }: { state: "opened" | "closed"; change: (stateEvent: "close" | "reopen") => Promise<ActionResult> }) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const [failure, setFailure] = useState<string | null>(null);
  const closing = state === "opened";
  return (
    <div>
      {failure ? <Notice tone="error">{failure}</Notice> : null}
      <button
        type="button"
        className={closing ? "button button-secondary" : "button"}
        disabled={pending}
        onClick={() =>
          startTransition(async () => {
            setFailure(null);
            const result = await change(closing ? "close" : "reopen");
            if (!result.ok) setFailure(result.message);
            else router.refresh();
          })
        }
      >
        {closing ? "Close issue" : "Reopen issue"}
      </button>
    </div>
  );
}
