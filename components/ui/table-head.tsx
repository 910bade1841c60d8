/**
 * The header row of a `.table`. `actionsColumn` adds a last column for the rows' buttons, named only for screen
 * readers: the buttons say what they do.
 */
export function TableHead({ columns, actionsColumn = false }: { columns: string[]; actionsColumn?: boolean }) {
  return (
    <thead>
      <tr>
        {columns.map((column) => (
          <th key={column} scope="col">
            {column}
          </th>
        ))}
        {actionsColumn ? (
          <th scope="col">
            <span className="visually-hidden">Actions</span>
          </th>
        ) : null}
      </tr>
    </thead>
  );
}
