import type { Metadata } from "next";
import { EmailRequestPage } from "@/components/auth/email-request-page";
import { requestPasswordResetAction } from "../actions";

export const metadata: Metadata = { title: "Forgot your password?" };

/** GitLab's `/users/password/new`. */
export default function ForgotPasswordPage() {
  return (
    <EmailRequestPage
      title="Forgot your password?"
      intro="Enter the email address of your account; a link to choose a new password will be sent there."
      request={requestPasswordResetAction}
      submitLabel="Reset password"
      sentMessage="If your email address exists in our database, you will receive a password recovery link at your email address in a few minutes."
    />
  );
}
