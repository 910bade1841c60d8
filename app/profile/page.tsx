import type { Metadata } from "next";
import Link from "next/link";
import { FeedToken } from "@/components/profile/feed-token";
import { SignOutEverywhere } from "@/components/profile/sign-out-everywhere";
import { DateText } from "@/components/ui/date-text";
import { requireSessionContext } from "@/lib/auth/session";
import { currentUser } from "@/lib/users/users";
import { resetFeedTokenAction, signOutEverywhereAction } from "./actions";

export const metadata: Metadata = { title: "Profile" };

export default async function ProfilePage() {
  const user = currentUser(await requireSessionContext("/profile"));
  return (
    <>
      <div className="page-header">
        <div>
          <h1>{user.name}</h1>
          <p className="muted">@{user.username}</p>
        </div>
        <Link className="button button-secondary" href={`/${user.username}`}>
          View public page
        </Link>
      </div>
      <section aria-labelledby="account-heading">
        <h2 id="account-heading">Account</h2>
        <dl className="details">
          <dt>Username</dt>
          <dd>{user.username}</dd>
          <dt>Email</dt>
          <dd>
            {user.email}{" "}
            {user.confirmedAt ? <span className="badge badge-success">Confirmed</span> : <span className="badge badge-warning">Not confirmed</span>}
          </dd>
          <dt>Name</dt>
          <dd>{user.name}</dd>
          <dt>Member since</dt>
          <dd>
            <DateText value={user.createdAt} />
          </dd>
          <dt>Two-factor authentication</dt>
          <dd>
            {user.otpEnabledAt ? <span className="badge badge-success">Enabled</span> : <span className="badge">Disabled</span>}
          </dd>
        </dl>
      </section>
      <section aria-labelledby="settings-heading">
        <h2 id="settings-heading">Settings</h2>
        <ul>
          <li>
            <Link href="/profile/password/edit">Password</Link>
          </li>
          <li>
            <Link href="/profile/two_factor_auth">Two-factor authentication</Link>
          </li>
          <li>
            <Link href="/profile/notifications">Notifications</Link>
          </li>
          <li>
            <Link href="/profile/personal_access_tokens">Personal access tokens</Link>
          </li>
          <li>
            <Link href="/profile/applications">Applications</Link>
          </li>
        </ul>
      </section>
      <section aria-labelledby="feed-token-heading">
        <h2 id="feed-token-heading">Feed token</h2>
        <p>
          Feed readers use your feed token to follow the Atom feeds of your activity, of people and of private projects
          as you see them. It only reads: it cannot change anything.
        </p>
        <FeedToken createdAt={user.feedTokenCreatedAt?.toISOString() ?? null} reset={resetFeedTokenAction} />
      </section>
      <section aria-labelledby="sessions-heading">
        <h2 id="sessions-heading">Sessions</h2>
        <p>Signed in somewhere you no longer use, or on a computer you do not trust? End every browser session of your account.</p>
        <SignOutEverywhere signOutEverywhere={signOutEverywhereAction} />
      </section>
    </>
  );
}
