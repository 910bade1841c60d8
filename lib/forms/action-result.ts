/**
 * What a server action of our UI answers: the data on success, or what to show in the form. Pure, so client
 * components can import the type and the helpers.
 */
export type ActionResult<T = undefined> =
  | { ok: true; data: T }
  | { ok: false; message: string; fieldErrors?: Record<string, string[]> };

export function actionSuccess(): ActionResult<undefined>;
export function actionSuccess<T>(data: T): ActionResult<T>;
export function actionSuccess<T>(data?: T): ActionResult<T | undefined> {
  return { ok: true, data };
}

/** A failure caused by input the action could not read, reported per field like the model's own errors. */
export function invalidInput(fieldErrors: Record<string, string[]>): ActionResult<never> {
  return { ok: false, message: "Please correct the highlighted fields.", fieldErrors };
}
