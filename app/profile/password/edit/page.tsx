import type { Metadata } from "next";
import Link from "next/link";
import { ProfilePageHeader } from "@/components/profile/profile-page-header";
import { NewPasswordForm } from "@/components/auth/new-password-form";
import { requireSessionContext } from "@/lib/auth/session";
import { changePasswordAction } from "./actions";

export const metadata: Metadata = { title: "Password" };

/** GitLab's password page (`/-/user_settings/password/edit`, once `/profile/password/edit`). */
export default async function PasswordPage() {
  await requireSessionContext("/profile/password/edit");
  return (
    <>
      <ProfilePageHeader title="Password">
        After a successful password update you will be signed out everywhere and asked to sign in again.
      </ProfilePageHeader>
      <div className="card narrow">
        <NewPasswordForm
          submit={changePasswordAction}
          askCurrentPassword
          submitLabel="Save password"
          doneUrl="/users/sign_in?notice=password_changed"
        />
      </div>
      <p>
        I forgot my password: <Link href="/users/password/new">reset it by email</Link>.
      </p>
    </>
  );
}
