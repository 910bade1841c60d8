import type { Metadata } from "next";
import { EmailRequestPage } from "@/components/auth/email-request-page";
import { resendConfirmationAction } from "../actions";

export const metadata: Metadata = { title: "Resend confirmation instructions" };

/** GitLab's `/users/confirmation/new`. */
export default function ResendConfirmationPage() {
  return (
    <EmailRequestPage
      title="Resend confirmation instructions"
      intro="Enter the email address of your account; a new link to confirm it will be sent there."
      request={resendConfirmationAction}
      submitLabel="Resend"
      sentMessage="If your email address exists in our database and is not confirmed yet, you will receive an email with instructions for how to confirm your email address in a few minutes."
    />
  );
}
