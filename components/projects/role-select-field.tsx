import { useId } from "react";
import type { UseFormRegisterReturn } from "react-hook-form";
import { FieldError } from "@/components/ui/text-field";

/** A role dropdown for react-hook-form, its error announced with it; `hideLabel` where a table's column names it. */
export function RoleSelectField({
  label,
  hideLabel,
  registration,
  error,
  roles,
}: {
  label: string;
  hideLabel?: boolean;
  registration: UseFormRegisterReturn;
  error?: string;
  roles: { accessLevel: number; name: string }[];
}) {
  const id = useId();
  const errorId = `${id}-error`;
  return (
    <div className="field">
      <label htmlFor={id} className={hideLabel ? "visually-hidden" : undefined}>
        {label}
      </label>
      <select id={id} aria-invalid={error ? true : undefined} aria-describedby={error ? errorId : undefined} {...registration}>
        {roles.map((role) => (
          <option key={role.accessLevel} value={String(role.accessLevel)}>
            {role.name}
          </option>
        ))}
      </select>
      <FieldError id={errorId} message={error} />
    </div>
  );
}
