import type { Metadata } from "next";
import type { ReactNode } from "react";
import { ConfirmationNotice } from "@/components/auth/confirmation-notice";
import { SiteHeader } from "@/components/site-header";
import { getSessionUser } from "@/lib/auth/session";
import { isSignUpEnabled } from "@/lib/auth/sign-up";
import { resendOwnConfirmationAction } from "./users/confirmation/actions";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "GitLab-compatible service", template: "%s · GitLab-compatible service" },
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  const user = await getSessionUser();
  return (
    <html lang="en">
      <body>
        <SiteHeader user={user ? { username: user.username, name: user.name, isAdmin: user.isAdmin } : null} signUpEnabled={isSignUpEnabled()} />
        <main className="content">
          {user && !user.confirmedAt ? <ConfirmationNotice email={user.email} resend={resendOwnConfirmationAction} /> : null}
          {children}
        </main>
      </body>
    </html>
  );
}
