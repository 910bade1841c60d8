import type { Metadata } from "next";
import { ProfilePageHeader } from "@/components/profile/profile-page-header";
import { TwoFactorEnrollment } from "@/components/profile/two-factor-enrollment";
import { TwoFactorSettings } from "@/components/profile/two-factor-settings";
import { DateText } from "@/components/ui/date-text";
import { Notice } from "@/components/ui/notice";
import { requireSessionContext } from "@/lib/auth/session";
import { beginTwoFactorEnrollment } from "@/lib/auth/two-factor";
import { currentUser } from "@/lib/users/users";
import { confirmTwoFactorAction, disableTwoFactorAction, regenerateRecoveryCodesAction } from "./actions";

export const metadata: Metadata = { title: "Two-factor authentication" };

interface TwoFactorPageProps {
  searchParams: Promise<{ notice?: string | string[] }>;
}

export default async function TwoFactorPage({ searchParams }: TwoFactorPageProps) {
  const ctx = await requireSessionContext("/profile/two_factor_auth");
  const user = currentUser(ctx);
  const enrollment = user.otpEnabledAt ? null : await beginTwoFactorEnrollment(ctx);
  // Only this fixed text can be shown, whatever the URL says, and only while two-factor authentication is indeed off.
  const justDisabled = enrollment !== null && (await searchParams).notice === "disabled";
  return (
    <>
      <ProfilePageHeader title="Two-factor authentication">
        Require a code from an authenticator app, as well as your password, to sign in.
      </ProfilePageHeader>
      {justDisabled ? <Notice tone="success">Two-factor authentication has been disabled.</Notice> : null}
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
