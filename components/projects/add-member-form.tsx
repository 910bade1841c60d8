"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { useServerErrors } from "@/components/ui/use-server-errors";
import { FormFailureNotice } from "@/components/ui/form-failure";
import { Notice } from "@/components/ui/notice";
import type { ActionResult } from "@/lib/forms/action-result";
import { addMemberFormSchema, type AddMemberForm as AddMemberValues } from "@/lib/projects/form-schemas";
import { RoleSelectField } from "./role-select-field";
import { UserSearchField, type UserSuggestion } from "./user-search-field";

interface AddMemberFormProps {
  add: (values: AddMemberValues) => Promise<ActionResult<{ username: string }>>;
  /** The roles the viewer may hand out (only Owners grant Owner). */
  roles: { accessLevel: number; name: string }[];
  suggestUsers: (query: string) => Promise<ActionResult<UserSuggestion[]>>;
  /** What the member joins, as the confirmation names it. */
  source?: "project" | "group";
}

export function AddMemberForm({ add, roles, suggestUsers, source = "project" }: AddMemberFormProps) {
  const router = useRouter();
  const { register, handleSubmit, formState, setError, setFocus, setValue, reset } = useForm<AddMemberValues>({
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
      {added ? <Notice tone="success">@{added} was added to the {source}.</Notice> : null}
      <div className="inline-form">
        <UserSearchField
          label="Username"
          registration={register("username")}
          error={formState.errors.username?.message}
          suggest={suggestUsers}
          onChoose={(username) => setValue("username", username, { shouldValidate: true })}
        />
        <RoleSelectField label="Role" registration={register("accessLevel")} error={formState.errors.accessLevel?.message} roles={roles} />
        <button type="submit" className="button" disabled={formState.isSubmitting}>
          Add member
        </button>
      </div>
    </form>
  );
}
