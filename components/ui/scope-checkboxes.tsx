import { useId } from "react";
import type { UseFormRegisterReturn } from "react-hook-form";
import { FieldError } from "./text-field";

/** A fieldset of scope checkboxes, each with its one-line description (token and application forms). */
export function ScopeCheckboxes({
  options,
  registration,
  error,
}: {
  options: readonly { scope: string; description: string }[];
  registration: UseFormRegisterReturn;
  error?: string;
}) {
  const errorId = useId();
  return (
    <fieldset aria-describedby={error ? errorId : undefined}>
      <legend>Scopes</legend>
      {options.map(({ scope, description }) => (
        <label className="choice" key={scope}>
          <input type="checkbox" value={scope} aria-invalid={error ? true : undefined} {...registration} />
          <span className="choice-label">{scope}</span>
          <span className="choice-description">{description}</span>
        </label>
      ))}
      <FieldError id={errorId} message={error} />
    </fieldset>
  );
}
