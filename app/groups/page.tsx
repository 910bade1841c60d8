import { redirect } from "next/navigation";

/** `/groups` is the visitor's groups, as on GitLab. */
export default function GroupsPage(): never {
  redirect("/dashboard/groups");
}
