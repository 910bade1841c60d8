"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useForm } from "react-hook-form";
import { FormFailureNotice } from "@/components/ui/form-failure";
import { VisibilityField } from "@/components/projects/visibility-field";
import { TextField } from "@/components/ui/text-field";
import { useServerErrors } from "@/components/ui/use-server-errors";
import type { ActionResult } from "@/lib/forms/action-result";
import { groupFormSchema, type GroupForm as GroupValues } from "@/lib/groups/form-schemas";
import { groupPagePath } from "@/lib/groups/paths";

interface GroupFormProps {
  save: (values: GroupValues) => Promise<ActionResult<{ fullPath: string }>>;
  initial?: GroupValues;
  /** The parent's full path, shown in front of the path field (a subgroup's). */
  parentPath: string | null;
  submitLabel: string;
  cancelHref: string;
}

/** A group's name, path, description and visibility; once saved, the group's page. */
export function GroupForm({ save, initial, parentPath, submitLabel, cancelHref }: GroupFormProps) {
  const router = useRouter();
  const { register, handleSubmit, formState, setError, setFocus } = useForm<GroupValues>({
    resolver: zodResolver(groupFormSchema),
    defaultValues: initial ?? { name: "", path: "", visibility: "private", description: "" },
  });
  // A visibility the parent or what is below refuses comes back as GitLab's `visibility_level`, shown in the notice.
  const { failure, report, clear } = useServerErrors({ setError, setFocus }, ["name", "path", "description", "visibility"]);

  async function onSubmit(values: GroupValues) {
    clear();
    const result = await save(values);
    if (!result.ok) {
      report(result);
      return;
    }
    router.push(groupPagePath(result.data.fullPath));
    router.refresh();
  }

  const { errors } = formState;
  return (
    <form className="stack card" onSubmit={handleSubmit(onSubmit)} noValidate>
      <FormFailureNotice failure={failure} />
      <TextField label="Group name" registration={register("name")} error={errors.name?.message} autoFocus />
      <TextField
        label="Group URL"
        registration={register("path")}
        error={errors.path?.message}
        hint={`${initial ? "" : "Optional; made from the name when empty. "}The group's URL is /groups/${parentPath ? `${parentPath}/` : ""}<path>.`}
      />
      <TextField label="Group description (optional)" registration={register("description")} error={errors.description?.message} multiline />
      <VisibilityField registration={register("visibility")} error={errors.visibility?.message} of="group" />
      <div className="form-actions">
        <button type="submit" className="button" disabled={formState.isSubmitting}>
          {submitLabel}
        </button>
        <Link className="button button-secondary" href={cancelHref}>
          Cancel
        </Link>
      </div>
    </form>
  );
}
