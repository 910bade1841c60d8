import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { SignInForm } from "@/components/auth/sign-in-form";
import { Notice } from "@/components/ui/notice";
import { safeCallbackPath } from "@/lib/auth/form-schemas";
import { getSessionUser, sessionContext } from "@/lib/auth/session";
import { isSignUpEnabled } from "@/lib/auth/sign-up";
import { signInPurpose } from "@/lib/oauth/sign-in-purpose";

export const metadata: Metadata = { title: "Sign in" };

interface SignInPageProps {
  searchParams: Promise<{ callbackUrl?: string | string[]; error?: string | string[]; notice?: string | string[] }>;
}

/** Why someone was sent here after their sessions ended; only these texts can be shown, whatever the URL says. */
const arrivalNotices: Record<string, string> = {
  password_changed: "Password was successfully updated. Please sign in again.",
  password_reset: "Your password has been changed successfully. Sign in with your new password.",
  signed_out_everywhere: "You have been signed out everywhere. Please sign in again.",
};

export default async function SignInPage({ searchParams }: SignInPageProps) {
  const params = await searchParams;
  const callbackPath = safeCallbackPath(typeof params.callbackUrl === "string" ? params.callbackUrl : null);
  if (await getSessionUser()) redirect(callbackPath);
  // next-auth sends people here with ?error= when a sign-in fails outside our form (e.g. an expired session).
  const arrivedWithError = typeof params.error === "string";
  const arrivalNotice = typeof params.notice === "string" && Object.hasOwn(arrivalNotices, params.notice) ? arrivalNotices[params.notice] : undefined;
  const purpose = await signInPurpose(await sessionContext(), callbackPath);
  return (
    <div className="narrow">
      <h1>Sign in</h1>
      {purpose ? (
        <p className="sign-in-purpose" data-testid="sign-in-purpose">
          {purpose.kind === "application" ? (
            <>
              Sign in to continue to <strong>{purpose.name}</strong>, which is asking to access your account.
            </>
          ) : (
            <>Sign in to authorize a device. You will check its code and what it asks for next.</>
          )}
        </p>
      ) : null}
      <p className="muted">Use your username or email address.</p>
      <div className="card section">
        {arrivalNotice ? <Notice tone="success">{arrivalNotice}</Notice> : null}
        {arrivedWithError ? <Notice tone="error">Please sign in again.</Notice> : null}
        <SignInForm callbackPath={callbackPath} />
        <p>
          <Link href="/users/password/new">Forgot your password?</Link>
        </p>
      </div>
      {isSignUpEnabled() ? (
        <p>
          Don&apos;t have an account yet? <Link href="/users/sign_up">Register now</Link>
        </p>
      ) : null}
    </div>
  );
}
