"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { applyFieldErrors } from "@/components/ui/apply-field-errors";
import { Notice } from "@/components/ui/notice";
import { FieldError, TextField } from "@/components/ui/text-field";
import type { ActionResult } from "@/lib/forms/action-result";
import { newProjectFormSchema, projectVisibilityOptions, type NewProjectForm as NewProjectValues } from "@/lib/projects/form-schemas";

interface NewProjectFormProps {
  create: (values: NewProjectValues) => Promise<ActionResult<{ fullPath: string }>>;
  /** The signed-in user's namespace, shown in front of the path field. */
  namespacePath: string;
}

export function NewProjectForm({ create, namespacePath }: NewProjectFormProps) {
  const router = useRouter();
  const { register, handleSubmit, formState, setError } = useForm<NewProjectValues>({
    resolver: zodResolver(newProjectFormSchema),
    defaultValues: { name: "", path: "", visibility: "private", description: "" },
  });
  const [failure, setFailure] = useState<string | null>(null);

  async function onSubmit(values: NewProjectValues) {
    setFailure(null);
    const result = await create(values);
    if (!result.ok) {
      setFailure(applyFieldErrors(result.fieldErrors, setError, ["name", "path", "visibility", "description"]) || result.message);
      return;
    }
    router.push(`/${result.data.fullPath}`);
  }

  const { errors } = formState;
  return (
    <form className="stack card" onSubmit={handleSubmit(onSubmit)} noValidate>
      {failure ? <Notice tone="error">{failure}</Notice> : null}
      <TextField label="Project name" registration={register("name")} error={errors.name?.message} autoFocus />
      <TextField
        label="Project slug"
        registration={register("path")}
        error={errors.path?.message}
        hint={`Optional; made from the name when empty. The project's URL is /${namespacePath}/<slug>.`}
      />
      <TextField label="Project description (optional)" registration={register("description")} error={errors.description?.message} multiline />
      <fieldset>
        <legend>Visibility level</legend>
        {projectVisibilityOptions.map((option) => (
          <label className="choice" key={option.value}>
            <input type="radio" value={option.value} {...register("visibility")} />
            <span className="choice-label">{option.label}</span>
            <span className="choice-description">{option.description}</span>
          </label>
        ))}
        <FieldError message={errors.visibility?.message} />
      </fieldset>
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
