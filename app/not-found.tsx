import Link from "next/link";

export default function NotFound() {
  return (
    <div className="narrow">
      <h1>Page not found</h1>
      <p className="muted">The page could not be found, or you do not have permission to see it.</p>
      <p>
        <Link href="/">Go to the home page</Link>
      </p>
    </div>
  );
}
