import { DateText } from "@/components/ui/date-text";

/** A milestone's start and due dates as its pages show them: a range, either end alone, or none. */
export function MilestoneDates({ milestone }: { milestone: { startDate: string | null; dueDate: string | null } }) {
  const { startDate, dueDate } = milestone;
  if (startDate && dueDate) {
    return (
      <>
        <DateText value={startDate} />–<DateText value={dueDate} />
      </>
    );
  }
  if (dueDate) {
    return (
      <>
        Due <DateText value={dueDate} />
      </>
    );
  }
  if (startDate) {
    return (
      <>
        Starts <DateText value={startDate} />
      </>
    );
  }
  return <span className="muted">No dates</span>;
}
