"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useId } from "react";
import { useForm } from "react-hook-form";
import { useServerErrors } from "@/components/ui/use-server-errors";
import { FormFailureNotice } from "@/components/ui/form-failure";
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
  const visibilityErrorId = useId();
  const { register, handleSubmit, formState, setError, setFocus } = useForm<NewProjectValues>({
    resolver: zodResolver(newProjectFormSchema),
    defaultValues: { name: "", path: "", visibility: "private", description: "" },
  });
  const { failure, report, clear } = useServerErrors({ setError, setFocus }, ["name", "path", "description", "visibility"]);

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
      <TextField
        label="Project slug"
        registration={register("path")}
        error={errors.path?.message}
        hint={`Optional; made from the name when empty. The project's URL is /${namespacePath}/<slug>.`}
      />
      <TextField label="Project description (optional)" registration={register("description")} error={errors.description?.message} multiline />
      <fieldset aria-describedby={errors.visibility ? visibilityErrorId : undefined}>
        <legend>Visibility level</legend>
        {projectVisibilityOptions.map((option) => (
          <label className="choice" key={option.value}>
            <input type="radio" value={option.value} {...register("visibility")} />
            <span className="choice-label">{option.label}</span>
            <span className="choice-description">{option.description}</span>
          </label>
        ))}
        <FieldError id={visibilityErrorId} message={errors.visibility?.message} />
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
