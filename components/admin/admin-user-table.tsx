import Link from "next/link";
import { DateText } from "@/components/ui/date-text";
import { TableHead } from "@/components/ui/table-head";
import { UserStateBadges, type AccountState } from "./user-state-badges";

export interface AdminUserListItem extends AccountState {
  id: number;
  username: string;
  name: string;
  email: string;
  createdAt: Date;
}

/** The admin area's list of accounts. */
export function AdminUserTable({ users }: { users: AdminUserListItem[] }) {
  return (
    <table className="table">
      <TableHead columns={["Name", "Username", "Email", "State", "Created"]} />
      <tbody>
        {users.map((user) => (
          <tr key={user.id}>
            <td className="long-text">
              <Link href={`/admin/users/${user.username}`}>{user.name}</Link>
            </td>
            <td className="long-text">@{user.username}</td>
            <td className="long-text">{user.email}</td>
            <td>
              <UserStateBadges user={user} />
            </td>
            <td>
              <DateText value={user.createdAt} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
