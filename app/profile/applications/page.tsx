import type { Metadata } from "next";
import { ProfilePageHeader } from "@/components/profile/profile-page-header";
import { ApplicationForm } from "@/components/oauth/application-form";
import { ApplicationList, type ApplicationListItem } from "@/components/oauth/application-list";
import { AuthorizedApplicationList, type AuthorizedApplicationItem } from "@/components/oauth/authorized-application-list";
import { requireSessionContext } from "@/lib/auth/session";
import { listAuthorizedApplications, listOwnApplications } from "@/lib/oauth/applications";
import {
  createApplicationAction,
  deleteApplicationAction,
  renewApplicationSecretAction,
  revokeAuthorizedApplicationAction,
} from "./actions";

export const metadata: Metadata = { title: "Applications" };

export default async function ApplicationsPage() {
  const ctx = await requireSessionContext("/profile/applications");
  const applications: ApplicationListItem[] = (await listOwnApplications(ctx)).map((application) => ({
    id: application.id,
    name: application.name,
    uid: application.uid,
    redirectUris: application.redirectUris,
    confidential: application.confidential,
    scopes: application.scopes,
    createdAt: application.createdAt.toISOString(),
  }));
  const authorized: AuthorizedApplicationItem[] = (await listAuthorizedApplications(ctx)).map((entry) => ({
    id: entry.application.id,
    name: entry.application.name,
    scopes: entry.scopes,
    authorizedAt: entry.lastAuthorizedAt.toISOString(),
  }));
  return (
    <>
      <ProfilePageHeader title="Applications">
        Register applications that sign people in with this service (OAuth 2.0 / OpenID Connect), and manage the
        applications you gave access to your account.
      </ProfilePageHeader>
      <ApplicationForm create={createApplicationAction} />
      <section className="section" aria-labelledby="own-applications-heading">
        <h2 id="own-applications-heading">Your applications ({applications.length})</h2>
        <ApplicationList applications={applications} renewSecret={renewApplicationSecretAction} remove={deleteApplicationAction} />
      </section>
      <section className="section" aria-labelledby="authorized-applications-heading">
        <h2 id="authorized-applications-heading">Authorized applications ({authorized.length})</h2>
        <AuthorizedApplicationList applications={authorized} revoke={revokeAuthorizedApplicationAction} />
      </section>
    </>
  );
}
