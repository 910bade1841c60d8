/** The scopes a request asks for, in words (consent and device confirmation screens). */
export function ScopeList({ scopes }: { scopes: { scope: string; title: string; description: string }[] }) {
  return (
    <ul className="consent-scopes">
      {scopes.map((scope) => (
        <li key={scope.scope}>
          <strong>{scope.title}</strong> <code className="muted">{scope.scope}</code>
          <p>{scope.description}</p>
        </li>
      ))}
    </ul>
  );
}
