import { z } from "zod";

/** Forms of the sign-in, sign-up and two-factor pages; pure, shared by the client forms and the server actions. */

export const signInFormSchema = z.object({
  login: z.string().trim().min(1, "Enter your username or email."),
  password: z.string().min(1, "Enter your password."),
});
export type SignInForm = z.infer<typeof signInFormSchema>;

export const otpFormSchema = z.object({
  otp: z.string().trim().min(1, "Enter the code from your app or a recovery code."),
});
export type OtpForm = z.infer<typeof otpFormSchema>;

export const signUpFormSchema = z
  .object({
    name: z.string().trim().min(1, "Enter your name.").max(255),
    username: z.string().trim().min(2, "Username must be at least 2 characters.").max(255),
    email: z.email("Enter a valid email address."),
    password: z.string().min(8, "Password must be at least 8 characters.").max(128),
    passwordConfirmation: z.string(),
  })
  .refine((form) => form.password === form.passwordConfirmation, {
    message: "Passwords do not match.",
    path: ["passwordConfirmation"],
  });
export type SignUpForm = z.infer<typeof signUpFormSchema>;

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
