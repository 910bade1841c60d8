export interface RouteFile {
  /** The manifest's entry, e.g. `/api/v4/projects/[id]/route`. */
  entry: string;
  /** The compiled route module, relative to `.next/server`. */
  file: string;
}
export interface RouteTable {
  readonly __brand: "RouteTable";
}
export function routeTable(manifest: Record<string, string>, options?: { pages?: boolean }): RouteTable;
export function matchRoute(table: RouteTable, pathname: string): (RouteFile & { params: Record<string, string | string[]> }) | null;
export function matchPattern(table: RouteTable, pathname: string): string | null;
