import { Notice } from "@/components/ui/notice";
import { ScopeList } from "./scope-list";
import type { ConsentScreen } from "@/lib/oauth/authorize";

/**
 * For an application that registered itself: nobody here vouches for its name, so the person must know who sends
 * them (they started the connection themselves) and where they will be sent.
 */
function UnverifiedApplicationNotice({ unverified, redirectTarget }: { unverified: NonNullable<ConsentScreen["unverified"]>; redirectTarget: string }) {
  return (
    <Notice tone="warning" title="Unverified application">
      <p>
        {unverified.kind === "dynamic" ? (
          <>This application registered itself and has not been verified by an administrator of this service. </>
        ) : (
          <>
            This application is described by a document published at <strong>{unverified.documentHost}</strong> and has
            not been verified by an administrator of this service.{" "}
          </>
        )}
        Its name was chosen by whoever registered it. Authorize it only if you started this connection yourself, for
        example from an AI tool, and you expect to be sent to <strong>{redirectTarget}</strong>.
      </p>
    </Notice>
  );
}

/**
 * The consent screen. A plain HTML form, so it works before (or without) JavaScript; the decision route re-checks
 * every field and the CSRF token.
 */
export function ConsentForm({ screen, authenticityToken }: { screen: ConsentScreen; authenticityToken: string }) {
  const { application, owner, user, scopes } = screen;
  return (
    <div className="narrow consent">
      <h1>
        <strong>{application.name}</strong> is requesting access to your account
      </h1>
      <div className="card stack oauth-card">
        <p className="consent-user">
          Signed in as <strong>{user.name}</strong> <span className="muted">@{user.username}</span>
        </p>
        {screen.unverified ? <UnverifiedApplicationNotice unverified={screen.unverified} redirectTarget={screen.redirectTarget} /> : null}
        {screen.implicitGrant ? (
          <Notice tone="warning" title="Deprecated authorization flow">
            <p>
              This application uses the deprecated implicit grant, which sends the access token in the browser&apos;s
              address. It should move to the authorization code flow with PKCE.
            </p>
          </Notice>
        ) : null}
        {user.isAdmin ? (
          <Notice tone="warning">
            You are an administrator, which means authorizing access to {application.name} will allow it to interact
            with this service as an administrator as well.
          </Notice>
        ) : null}
        <section aria-labelledby="consent-scopes-heading">
          <h2 id="consent-scopes-heading">This application will be able to:</h2>
          <ScopeList scopes={scopes} />
        </section>
        <p>
          {owner ? (
            <>
              This application was registered by <strong>{owner.name}</strong> (@{owner.username}).{" "}
            </>
          ) : null}
          Make sure you trust <strong>{application.name}</strong> before authorizing.
        </p>
        <p>
          You will be redirected to <strong>{screen.redirectTarget}</strong> after authorizing.
        </p>
        <form method="post" action="/oauth/authorize/decision" className="form-actions">
          {Object.entries(screen.fields).map(([name, value]) => (
            <input key={name} type="hidden" name={name} value={value} />
          ))}
          <input type="hidden" name="authenticity_token" value={authenticityToken} />
          <button type="submit" name="decision" value="approve" className="button">
            Authorize {application.name}
          </button>
          <button type="submit" name="decision" value="deny" className="button button-secondary">
            Cancel
          </button>
        </form>
      </div>
    </div>
  );
}
