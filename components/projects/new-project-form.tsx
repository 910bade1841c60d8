"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useId } from "react";
import { useForm, useWatch } from "react-hook-form";
import { useServerErrors } from "@/components/ui/use-server-errors";
import { FormFailureNotice } from "@/components/ui/form-failure";
import { FieldError, TextField } from "@/components/ui/text-field";
import type { ActionResult } from "@/lib/forms/action-result";
import { newProjectFormSchema, type NewProjectForm as NewProjectValues } from "@/lib/projects/form-schemas";
import { VisibilityField } from "./visibility-field";

interface NewProjectFormProps {
  create: (values: NewProjectValues) => Promise<ActionResult<{ fullPath: string }>>;
  /** Where the project may go: the user's namespace first, then groups. */
  namespaces: { id: number; fullPath: string }[];
  /** The namespace chosen at first (a group's "New project" link names it). */
  namespaceId: number;
}

export function NewProjectForm({ create, namespaces, namespaceId }: NewProjectFormProps) {
  const router = useRouter();
  const namespaceFieldId = useId();
  const { register, handleSubmit, formState, setError, setFocus, control } = useForm<NewProjectValues>({
    resolver: zodResolver(newProjectFormSchema),
    defaultValues: { name: "", namespaceId: String(namespaceId), path: "", visibility: "private", description: "" },
  });
  const { failure, report, clear } = useServerErrors({ setError, setFocus }, ["name", "namespaceId", "path", "description", "visibility"]);
  const chosenNamespace = useWatch({ control, name: "namespaceId" });
  const namespacePath = namespaces.find((namespace) => String(namespace.id) === chosenNamespace)?.fullPath ?? "";

  async function onSubmit(values: NewProjectValues) {
    clear();
    const result = await create(values);
    if (!result.ok) {
      report(result);
      return;
    }
    router.push(`/${result.data.fullPath}`);
  }

  const { errors } = formState;
  return (
    <form className="stack card" onSubmit={handleSubmit(onSubmit)} noValidate>
      <FormFailureNotice failure={failure} />
      <TextField label="Project name" registration={register("name")} error={errors.name?.message} autoFocus />
      <div className="field">
        <label htmlFor={namespaceFieldId}>Project URL namespace</label>
        <select
          id={namespaceFieldId}
          aria-invalid={errors.namespaceId ? true : undefined}
          aria-describedby={errors.namespaceId ? `${namespaceFieldId}-error` : undefined}
          {...register("namespaceId")}
        >
          {namespaces.map((namespace) => (
            <option key={namespace.id} value={String(namespace.id)}>
              {namespace.fullPath}
            </option>
          ))}
        </select>
        <FieldError id={`${namespaceFieldId}-error`} message={errors.namespaceId?.message} />
      </div>
      <TextField
        label="Project slug"
        registration={register("path")}
        error={errors.path?.message}
        hint={`Optional; made from the name when empty. The project's URL is /${namespacePath}/<slug>.`}
      />
      <TextField label="Project description (optional)" registration={register("description")} error={errors.description?.message} multiline />
      <VisibilityField registration={register("visibility")} error={errors.visibility?.message} of="project" />
      <div className="form-actions">
        <button type="submit" className="button" disabled={formState.isSubmitting}>
          Create project
        </button>
        <Link className="button button-secondary" href="/projects">
          Cancel
        </Link>
      </div>
    </form>
  );
}
