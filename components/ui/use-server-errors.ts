import { useState } from "react";
import type { FieldPath, FieldValues, UseFormSetError, UseFormSetFocus } from "react-hook-form";

/** A failure to show in a form's notice; `serial` tells two equal messages apart, so a repeated failure is shown again. */
export interface FormFailure {
  message: string;
  serial: number;
  /** The notice takes the focus: nothing else in the form shows what went wrong. */
  focus: boolean;
}

/** What a failed server action answered, as far as a form is concerned. */
interface ServerFailure {
  message: string;
  fieldErrors?: Record<string, string[]>;
}

/**
 * Splits a server action's per-field errors into those of fields this form shows (in the form's order) and the
 * messages of any other field, which only a notice can show.
 */
export function placeFieldErrors<Name extends string>(
  fieldErrors: Record<string, string[]> | undefined,
  fields: readonly Name[],
): { placed: [Name, string][]; unplaced: string } {
  const errors = fieldErrors ?? {};
  const placed = fields.filter((field) => errors[field]?.length).map((field): [Name, string] => [field, errors[field]!.join(" ")]);
  const unplaced = Object.entries(errors)
    .filter(([field]) => !(fields as readonly string[]).includes(field))
    .flatMap(([, messages]) => messages);
  return { placed, unplaced: unplaced.join(" ") };
}

/** Scrolls the element with the focus to the middle of the viewport, so the error under it is visible too. */
export function centerFocusedElement(): void {
  if (document.activeElement instanceof HTMLElement) document.activeElement.scrollIntoView({ block: "center" });
}

/**
 * How every form shows a server action's failure: each field error on its field (the first one focused and scrolled
 * into view), and whatever belongs to no field in the notice, which takes the focus when no field does. `fields`
 * lists the form's fields in the order they appear.
 */
export function useServerErrors<T extends FieldValues>(
  form: { setError: UseFormSetError<T>; setFocus: UseFormSetFocus<T> },
  fields: readonly FieldPath<T>[],
) {
  const [failure, setFailure] = useState<FormFailure | null>(null);

  function report({ message, fieldErrors }: ServerFailure) {
    const { placed, unplaced } = placeFieldErrors(fieldErrors, fields);
    for (const [field, fieldMessage] of placed) form.setError(field, { type: "server", message: fieldMessage });
    const serial = (failure?.serial ?? 0) + 1;
    const [first] = placed;
    if (first) {
      // setFocus also reaches a checkbox group, whose registered ref cannot take the focus itself. It focuses on a
      // timer, so the centring waits for it.
      form.setFocus(first[0]);
      setTimeout(centerFocusedElement);
      setFailure(unplaced ? { message: unplaced, serial, focus: false } : null);
    } else {
      setFailure({ message: unplaced || message, serial, focus: true });
    }
  }

  return { failure, report, clear: () => setFailure(null) };
}
