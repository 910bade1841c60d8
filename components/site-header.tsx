import Link from "next/link";
import { SignOutButton } from "@/components/auth/sign-out-button";

export interface HeaderUser {
  username: string;
  name: string;
  isAdmin: boolean;
}

export function SiteHeader({ user, signUpEnabled }: { user: HeaderUser | null; signUpEnabled: boolean }) {
  return (
    <header className="site-header">
      <nav className="site-nav" aria-label="Main">
        <Link href={user ? "/projects" : "/"} className="brand">
          <span className="brand-mark" aria-hidden="true">
            ◆
          </span>
          GitLab-compatible service
        </Link>
        {user ? (
          <ul className="nav-links">
            <li>
              <Link href="/projects">Projects</Link>
            </li>
            <li>
              <Link href="/dashboard/groups">Groups</Link>
            </li>
            <li>
              <Link href="/dashboard/activity">Activity</Link>
            </li>
            {user.isAdmin ? (
              <li>
                <Link href="/admin/users">Admin</Link>
              </li>
            ) : null}
            <li>
              <Link href="/profile" title={`Signed in as @${user.username}`}>
                Profile <span className="muted">@{user.username}</span>
              </Link>
            </li>
            <li>
              <SignOutButton />
            </li>
          </ul>
        ) : (
          <ul className="nav-links">
            <li>
              <Link href="/users/sign_in">Sign in</Link>
            </li>
            {signUpEnabled ? (
              <li>
                <Link href="/users/sign_up">Register</Link>
              </li>
            ) : null}
          </ul>
        )}
      </nav>
    </header>
  );
}
