import type { Metadata } from "next";
import type { ReactNode } from "react";
import { SiteHeader } from "@/components/site-header";
import { getSessionUser } from "@/lib/auth/session";
import { isSignUpEnabled } from "@/lib/auth/sign-up";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "GitLab-compatible service", template: "%s · GitLab-compatible service" },
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  const user = await getSessionUser();
  return (
    <html lang="en">
      <body>
        <SiteHeader user={user ? { username: user.username, name: user.name } : null} signUpEnabled={isSignUpEnabled()} />
        <main className="content">{children}</main>
      </body>
    </html>
  );
}
