"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import { useForm } from "react-hook-form";
import { useServerErrors } from "@/components/ui/apply-field-errors";
import { FormFailureNotice } from "@/components/ui/form-failure";
import { Notice } from "@/components/ui/notice";
import { FieldError, TextField } from "@/components/ui/text-field";
import type { ActionResult } from "@/lib/forms/action-result";
import { addMemberFormSchema, type AddMemberForm as AddMemberValues } from "@/lib/projects/form-schemas";

interface AddMemberFormProps {
  add: (values: AddMemberValues) => Promise<ActionResult<{ username: string }>>;
  /** The roles the viewer may hand out (only Owners grant Owner). */
  roles: { accessLevel: number; name: string }[];
}

export function AddMemberForm({ add, roles }: AddMemberFormProps) {
  const router = useRouter();
  const roleId = useId();
  const { register, handleSubmit, formState, setError, setFocus, reset } = useForm<AddMemberValues>({
    resolver: zodResolver(addMemberFormSchema),
    defaultValues: { username: "", accessLevel: "10" },
  });
  const { failure, report, clear } = useServerErrors({ setError, setFocus }, ["username", "accessLevel"]);
  const [added, setAdded] = useState<string | null>(null);

  async function onSubmit(values: AddMemberValues) {
    clear();
    setAdded(null);
    const result = await add(values);
    if (!result.ok) {
      report(result);
      return;
    }
    setAdded(result.data.username);
    reset();
    router.refresh();
  }

  return (
    <form className="stack card" onSubmit={handleSubmit(onSubmit)} noValidate aria-labelledby="add-member-heading">
      <h2 id="add-member-heading" style={{ margin: 0 }}>
        Add a member
      </h2>
      <FormFailureNotice failure={failure} />
      {added ? <Notice tone="success">@{added} was added to the project.</Notice> : null}
      <div className="inline-form">
        <TextField label="Username" registration={register("username")} error={formState.errors.username?.message} autoComplete="off" />
        <div className="field">
          <label htmlFor={roleId}>Role</label>
          <select
            id={roleId}
            aria-invalid={formState.errors.accessLevel ? true : undefined}
            aria-describedby={formState.errors.accessLevel ? `${roleId}-error` : undefined}
            {...register("accessLevel")}
          >
            {roles.map((role) => (
              <option key={role.accessLevel} value={String(role.accessLevel)}>
                {role.name}
              </option>
            ))}
          </select>
          <FieldError id={`${roleId}-error`} message={formState.errors.accessLevel?.message} />
        </div>
        <button type="submit" className="button" disabled={formState.isSubmitting}>
          Add member
        </button>
      </div>
    </form>
  );
}
