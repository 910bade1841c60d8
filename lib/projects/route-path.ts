/**
 * A namespace's full path as a route segment names it. A subgroup reaches the `[namespace]` and `[group]` routes as
 * one encoded segment (`/acme%2Fplatform/api/-/issues`, `/groups/acme%2Fplatform`, written by proxy.ts), which the
 * framework hands over still encoded; paths allow no other character that needs encoding.
 */
export function routeNamespacePath(segment: string): string {
  return segment.replace(/%2F/gi, "/");
}

/** The project full path that the `[namespace]/[project]` routes name. */
export function routeProjectPath({ namespace, project }: { namespace: string; project: string }): string {
  return `${routeNamespacePath(namespace)}/${project}`;
}
