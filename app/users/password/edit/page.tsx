import type { Metadata } from "next";
import Link from "next/link";
import { NewPasswordForm } from "@/components/auth/new-password-form";
import { Notice } from "@/components/ui/notice";
import { passwordResetLinkState } from "@/lib/auth/passwords";
import { anonymousContext } from "@/lib/context";
import { resetPasswordAction } from "../actions";

export const metadata: Metadata = { title: "Change your password", referrer: "no-referrer" };

interface ResetPasswordPageProps {
  searchParams: Promise<{ reset_password_token?: string | string[] }>;
}

/** GitLab's `/users/password/edit?reset_password_token=…`: the page a password reset link opens. */
export default async function ResetPasswordPage({ searchParams }: ResetPasswordPageProps) {
  const { reset_password_token: token } = await searchParams;
  const state = typeof token === "string" && token !== "" ? await passwordResetLinkState(await anonymousContext(), token) : "invalid";
  return (
    <div className="narrow">
      <h1>Change your password</h1>
      {state === "valid" ? (
        <div className="card section">
          <NewPasswordForm
            submit={resetPasswordAction.bind(null, token)}
            askCurrentPassword={false}
            submitLabel="Change your password"
            doneUrl="/users/sign_in?notice=password_reset"
          />
        </div>
      ) : (
        <>
          <Notice tone="error">
            {state === "expired"
              ? "This password reset link has expired: links work for 6 hours."
              : "This password reset link is not valid. It may have been used already, or replaced by a newer one."}
          </Notice>
          <p>
            <Link href="/users/password/new">Request a new password reset link</Link>
          </p>
        </>
      )}
    </div>
  );
}
