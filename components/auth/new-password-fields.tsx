import type { UseFormRegisterReturn } from "react-hook-form";
import { TextField } from "@/components/ui/text-field";

interface NewPasswordFieldsProps {
  label: "Password" | "New password";
  password: UseFormRegisterReturn;
  passwordConfirmation: UseFormRegisterReturn;
  errors: { password?: string; passwordConfirmation?: string };
  autoFocus?: boolean;
}

/** A new password and its confirmation, as the sign-up, password change and password reset forms ask for them. */
export function NewPasswordFields({ label, password, passwordConfirmation, errors, autoFocus }: NewPasswordFieldsProps) {
  return (
    <>
      <TextField
        label={label}
        type="password"
        registration={password}
        error={errors.password}
        autoComplete="new-password"
        hint="At least 8 characters."
        autoFocus={autoFocus}
      />
      <TextField
        label="Password confirmation"
        type="password"
        registration={passwordConfirmation}
        error={errors.passwordConfirmation}
        autoComplete="new-password"
      />
    </>
  );
}
