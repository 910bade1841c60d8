import type { Metadata } from "next";
import { ProfilePageHeader } from "@/components/profile/profile-page-header";
import { PersonalAccessTokenForm } from "@/components/profile/personal-access-token-form";
import { PersonalAccessTokenTable, type TokenListItem } from "@/components/profile/personal-access-token-table";
import { requireSessionContext } from "@/lib/auth/session";
import { isTokenExpired, listOwnPersonalAccessTokens } from "@/lib/users/personal-access-tokens";
import { isAdmin } from "@/lib/users/users";
import { createPersonalAccessTokenAction, revokePersonalAccessTokenAction } from "./actions";

export const metadata: Metadata = { title: "Personal access tokens" };

export default async function PersonalAccessTokensPage() {
  const ctx = await requireSessionContext("/profile/personal_access_tokens");
  const tokens: TokenListItem[] = (await listOwnPersonalAccessTokens(ctx)).map((token) => ({
    id: token.id,
    name: token.name,
    scopes: token.scopes,
    createdAt: token.createdAt.toISOString(),
    lastUsedAt: token.lastUsedAt?.toISOString() ?? null,
    expiresAt: token.expiresAt,
    status: token.revoked ? "revoked" : isTokenExpired(token, ctx.now) ? "expired" : "active",
  }));
  return (
    <>
      <ProfilePageHeader title="Personal access tokens">
        Tokens let tools use the API and Git over HTTP as you. Give each tool its own token with only the scopes it
        needs.
      </ProfilePageHeader>
      <PersonalAccessTokenForm create={createPersonalAccessTokenAction} today={ctx.now.toISOString().slice(0, 10)} admin={isAdmin(ctx)} />
      <section aria-labelledby="tokens-heading">
        <h2 id="tokens-heading">Your tokens ({tokens.length})</h2>
        <PersonalAccessTokenTable tokens={tokens} revoke={revokePersonalAccessTokenAction} />
      </section>
    </>
  );
}
