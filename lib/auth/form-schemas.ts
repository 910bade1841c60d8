import { z } from "zod";

/** Forms of the sign-in, sign-up, password and two-factor pages; pure, shared by the client forms and the server actions. */

export const signInFormSchema = z.object({
  login: z.string().trim().min(1, "Enter your username or email."),
  password: z.string().min(1, "Enter your password."),
});
export type SignInForm = z.infer<typeof signInFormSchema>;

export const otpFormSchema = z.object({
  otp: z.string().trim().min(1, "Enter the code from your app or a recovery code."),
});
export type OtpForm = z.infer<typeof otpFormSchema>;

/** A new password typed twice, as the sign-up, password change and password reset forms ask for it. */
const newPasswordFields = {
  password: z.string().min(8, "Password must be at least 8 characters.").max(128, "Password must be at most 128 characters."),
  passwordConfirmation: z.string(),
};

function withMatchingPasswords<Schema extends z.ZodType<{ password: string; passwordConfirmation: string }>>(schema: Schema) {
  return schema.refine((form) => form.password === form.passwordConfirmation, {
    message: "Passwords do not match.",
    path: ["passwordConfirmation"],
  });
}

export const signUpFormSchema = withMatchingPasswords(
  z.object({
    name: z.string().trim().min(1, "Enter your name.").max(255),
    username: z.string().trim().min(2, "Username must be at least 2 characters.").max(255),
    email: z.email("Enter a valid email address."),
    ...newPasswordFields,
  }),
);
export type SignUpForm = z.infer<typeof signUpFormSchema>;

/** The password page of the profile. */
export const changePasswordFormSchema = withMatchingPasswords(
  z.object({ currentPassword: z.string().min(1, "Enter your current password."), ...newPasswordFields }),
);
export type ChangePasswordForm = z.infer<typeof changePasswordFormSchema>;

/** The page a password reset link opens. */
export const resetPasswordFormSchema = withMatchingPasswords(z.object(newPasswordFields));
export type ResetPasswordForm = z.infer<typeof resetPasswordFormSchema>;

/** "Forgot your password?" and "Resend confirmation email": an address, answered the same whatever it is. */
export const emailRequestFormSchema = z.object({
  email: z.string().trim().min(1, "Enter your email address.").max(255),
});
export type EmailRequestForm = z.infer<typeof emailRequestFormSchema>;

export const confirmTwoFactorFormSchema = z.object({
  code: z.string().trim().regex(/^\d{6}$/, "Enter the 6-digit code from your app."),
  password: z.string().min(1, "Enter your current password."),
});
export type ConfirmTwoFactorForm = z.infer<typeof confirmTwoFactorFormSchema>;

export const currentPasswordFormSchema = z.object({
  password: z.string().min(1, "Enter your current password."),
});
export type CurrentPasswordForm = z.infer<typeof currentPasswordFormSchema>;

/**
 * Where to go after signing in: only a path on this site. Anything else ("//evil.example", "https://…", "/\evil")
 * falls back to the project list, so a crafted link cannot send someone elsewhere.
 */
export function safeCallbackPath(callbackUrl: string | null | undefined, fallback = "/projects"): string {
  if (!callbackUrl || !callbackUrl.startsWith("/") || callbackUrl.startsWith("//") || callbackUrl.includes("\\")) {
    return fallback;
  }
  // Control characters could make a browser read the path differently than we do.
  if (/[\u0000-\u001f\u007f]/.test(callbackUrl)) return fallback;
  return callbackUrl;
}
