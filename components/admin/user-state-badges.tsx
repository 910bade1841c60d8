/** What the admin area shows of an account's state. */
export interface AccountState {
  state: string;
  isAdmin: boolean;
  userType: string;
  confirmedAt: Date | null;
}

/** An account's state as the admin area shows it: blocked or active, admin, bot, and whether its address is confirmed. */
export function UserStateBadges({ user }: { user: AccountState }) {
  return (
    <span className="badges">
      {user.state === "blocked" ? <span className="badge badge-danger">Blocked</span> : <span className="badge badge-success">Active</span>}
      {user.confirmedAt ? null : <span className="badge badge-warning">Unconfirmed</span>}
      {user.isAdmin ? <span className="badge">Admin</span> : null}
      {user.userType !== "human" ? <span className="badge">Bot</span> : null}
    </span>
  );
}
