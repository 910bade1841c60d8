import Link from "next/link";
import { Fragment } from "react";
import { groupPagePath } from "@/lib/groups/paths";

export interface CrumbNamespace {
  kind: "user" | "group";
  fullPath: string;
  /** The names from the root down, `Acme / Platform`. */
  fullName: string;
}

/**
 * A namespace's place as links, root first: a user's namespace leads to the user's page, each group above and including
 * a group to that group's page.
 */
export function NamespaceCrumbs({ namespace }: { namespace: CrumbNamespace }) {
  if (namespace.kind === "user") return <Link href={`/${namespace.fullPath}`}>{namespace.fullPath}</Link>;
  const paths = namespace.fullPath.split("/");
  const names = namespace.fullName.split(" / ");
  return (
    <>
      {paths.map((_, index) => (
        <Fragment key={index}>
          {index > 0 ? " / " : null}
          <Link href={groupPagePath(paths.slice(0, index + 1).join("/"))}>{names[index] ?? paths[index]}</Link>
        </Fragment>
      ))}
    </>
  );
}
