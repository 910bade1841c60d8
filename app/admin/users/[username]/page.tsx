import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { UserAdminActions } from "@/components/admin/user-admin-actions";
import { UserStateBadges } from "@/components/admin/user-state-badges";
import { DateText } from "@/components/ui/date-text";
import { DetailsList } from "@/components/ui/details-list";
import { requireSessionContext } from "@/lib/auth/session";
import { actingUser } from "@/lib/context";
import { ForbiddenError, NotFoundError } from "@/lib/errors";
import { getUserAsAdmin } from "@/lib/users/admin";
import { blockUserAction, confirmUserAction, unblockUserAction } from "./actions";

export const metadata: Metadata = { title: "User · Admin" };

/** GitLab's Admin area › Users › one account, with Confirm user, Block and Unblock. */
export default async function AdminUserPage({ params }: { params: Promise<{ username: string }> }) {
  const { username } = await params;
  const ctx = await requireSessionContext(`/admin/users/${encodeURIComponent(username)}`);
  let user: Awaited<ReturnType<typeof getUserAsAdmin>>;
  try {
    user = await getUserAsAdmin(ctx, username);
  } catch (error) {
    if (error instanceof ForbiddenError || error instanceof NotFoundError) notFound();
    throw error;
  }
  const isSelf = actingUser(ctx)?.id === user.id;
  const isHuman = user.userType === "human";
  return (
    <>
      <div className="breadcrumbs">
        <Link href="/admin/users">Users</Link> / @{user.username}
      </div>
      <div className="page-header">
        <div>
          <h1>{user.name}</h1>
          <p className="muted">@{user.username}</p>
        </div>
      </div>
      <section aria-labelledby="account-heading">
        <h2 id="account-heading">Account</h2>
        <DetailsList
          labelledBy="account-heading"
          rows={[
            ["State", <UserStateBadges key="state" user={user} />],
            ["Email", user.email],
            ["Email confirmed", <DateText key="confirmed" value={user.confirmedAt} empty="Not confirmed" />],
            ["Two-factor authentication", user.otpEnabledAt ? "Enabled" : "Disabled"],
            ["Member since", <DateText key="created" value={user.createdAt} />],
            ["Last sign-in", <DateText key="signed-in" value={user.lastSignInAt} />],
          ]}
        />
      </section>
      {isHuman ? (
        <section aria-labelledby="actions-heading">
          <h2 id="actions-heading">Actions</h2>
          <UserAdminActions
            userId={user.id}
            username={user.username}
            confirm={user.confirmedAt ? undefined : confirmUserAction}
            block={user.state === "active" && !isSelf ? blockUserAction : undefined}
            unblock={user.state === "blocked" ? unblockUserAction : undefined}
          />
        </section>
      ) : null}
    </>
  );
}
