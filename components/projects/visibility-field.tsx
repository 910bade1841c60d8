import { useId } from "react";
import type { UseFormRegisterReturn } from "react-hook-form";
import { FieldError } from "@/components/ui/text-field";
import { projectVisibilityOptions } from "@/lib/projects/form-schemas";

/** The visibility radios of a project's or a group's form, their error announced with them. */
export function VisibilityField({ registration, error, of }: { registration: UseFormRegisterReturn; error?: string; of: "project" | "group" }) {
  const errorId = useId();
  return (
    <fieldset aria-describedby={error ? errorId : undefined}>
      <legend>Visibility level</legend>
      {projectVisibilityOptions.map((option) => (
        <label className="choice" key={option.value}>
          <input type="radio" value={option.value} {...registration} />
          <span className="choice-label">{option.label}</span>
          <span className="choice-description">{option.description.replace("project", of)}</span>
        </label>
      ))}
      <FieldError id={errorId} message={error} />
    </fieldset>
  );
}
