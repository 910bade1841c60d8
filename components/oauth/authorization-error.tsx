/** An authorization request that cannot go back to the client: explained to the person, never redirected. */
export function AuthorizationError({ error, description }: { error: string; description: string }) {
  return (
    <div className="narrow">
      <h1>An error has occurred</h1>
      <div role="alert" className="stack">
        <p>The application sent an authorization request that cannot be completed.</p>
        <pre className="oauth-error">{`${error}: ${description}`}</pre>
      </div>
    </div>
  );
}
