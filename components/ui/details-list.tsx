import type { ReactNode } from "react";

/** Term and value pairs (`dl.details`), one row each; `labelledBy` is the id of the heading they belong to. */
export function DetailsList({ rows, labelledBy }: { rows: [term: string, value: ReactNode][]; labelledBy: string }) {
  return (
    <dl className="details" aria-labelledby={labelledBy}>
      {rows.map(([term, value]) => (
        <div key={term} className="details-row">
          <dt>{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
