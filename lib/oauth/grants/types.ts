import "server-only";
import type { Database } from "@/lib/db";

export interface TokenRequest {
  db: Database;
  request: Request;
  /** The grant's own parameters; anything it did not declare has been dropped. */
  params: Record<string, string | undefined>;
  now: Date;
}

/** One grant type: the parameters it reads and how it turns them into a token response body. */
export interface GrantHandler {
  parameters: ReadonlySet<string>;
  handle(request: TokenRequest): Promise<Record<string, string | number>>;
}
