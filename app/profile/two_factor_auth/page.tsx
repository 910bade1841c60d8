import type { Metadata } from "next";
import Link from "next/link";
import { TwoFactorEnrollment } from "@/components/profile/two-factor-enrollment";
import { TwoFactorSettings } from "@/components/profile/two-factor-settings";
import { DateText } from "@/components/ui/date-text";
import { Notice } from "@/components/ui/notice";
import { requireSessionContext } from "@/lib/auth/session";
import { beginTwoFactorEnrollment } from "@/lib/auth/two-factor";
import { currentUser } from "@/lib/users/users";
import { confirmTwoFactorAction, disableTwoFactorAction, regenerateRecoveryCodesAction } from "./actions";

export const metadata: Metadata = { title: "Two-factor authentication" };

export default async function TwoFactorPage() {
  const ctx = await requireSessionContext("/profile/two_factor_auth");
  const user = currentUser(ctx);
  const enrollment = user.otpEnabledAt ? null : await beginTwoFactorEnrollment(ctx);
  return (
    <>
      <div className="breadcrumbs">
        <Link href="/profile">Profile</Link> / Two-factor authentication
      </div>
      <div className="page-header">
        <div>
          <h1>Two-factor authentication</h1>
          <p className="muted">Require a code from an authenticator app, as well as your password, to sign in.</p>
        </div>
      </div>
      {enrollment === null ? (
        <>
          <Notice tone="success">
            Two-factor authentication is enabled since <DateText value={user.otpEnabledAt} />.
          </Notice>
          <TwoFactorSettings disable={disableTwoFactorAction} regenerate={regenerateRecoveryCodesAction} />
        </>
      ) : (
        <TwoFactorEnrollment qrCodeDataUrl={enrollment.qrCodeDataUrl} secret={enrollment.secret} confirm={confirmTwoFactorAction} />
      )}
    </>
  );
}
