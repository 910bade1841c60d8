import { useId, type HTMLInputTypeAttribute, type ReactNode } from "react";
import type { UseFormRegisterReturn } from "react-hook-form";

interface TextFieldProps {
  label: string;
  registration: UseFormRegisterReturn;
  error?: string;
  hint?: ReactNode;
  type?: HTMLInputTypeAttribute;
  autoComplete?: string;
  autoFocus?: boolean;
  inputMode?: "text" | "numeric" | "email";
  multiline?: boolean;
  required?: boolean;
}

/** A labelled input whose hint and error are announced with it (aria-describedby), for react-hook-form fields. */
export function TextField({ label, registration, error, hint, type = "text", multiline, ...inputProps }: TextFieldProps) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const describedBy = [hint ? hintId : null, error ? errorId : null].filter(Boolean).join(" ") || undefined;
  const shared = { id, "aria-invalid": error ? true : undefined, "aria-describedby": describedBy, ...registration };
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {multiline ? <textarea rows={4} {...shared} /> : <input type={type} {...inputProps} {...shared} />}
      {hint ? (
        <p className="field-hint" id={hintId}>
          {hint}
        </p>
      ) : null}
      <FieldError id={errorId} message={error} />
    </div>
  );
}

export function FieldError({ id, message }: { id?: string; message?: string }) {
  if (!message) return null;
  return (
    <p className="field-error" id={id}>
      {message}
    </p>
  );
}
