import { redirect } from "next/navigation";
import { anonymousContext } from "@/lib/context";
import { confirmEmail } from "@/lib/users/confirmation";

/**
 * GitLab's `/users/confirmation?confirmation_token=…`: the link mailed to a new account's address confirms it, then
 * the browser goes on to a page saying how it went. The page is a separate request, so everything on it (the notice
 * to unconfirmed users included) sees the address as it now is.
 */
export async function GET(request: Request): Promise<never> {
  const token = new URL(request.url).searchParams.get("confirmation_token");
  const outcome = token ? await confirmEmail(await anonymousContext(), token) : "invalid";
  redirect(`/users/confirmation/result?outcome=${outcome}`);
}
