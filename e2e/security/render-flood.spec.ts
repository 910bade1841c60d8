import { expect, test, type APIRequestContext, type APIResponse } from "@playwright/test";
import { asToken, createProject, createUser, type CreatedUser } from "../support/api";
import { signIn } from "../support/browser";
import { renderFloodServer } from "../support/constants";

/**
 * A flood of saves against the render threads' waiting line, on a server of its own (one render thread, a 10 s time
 * limit: `renderFloodServer`), since the line is the whole process's. The line holds 64 documents; a save that finds it
 * full is refused at once and nothing of it is written.
 */
test.describe.configure({ mode: "serial" });

const retryAfter = String(Math.ceil(Number(renderFloodServer.MARKDOWN_RENDER_TIMEOUT_MS) / 1000));
const waitingLine = 64;

// `marked` would take minutes over it: it holds the only render thread until the time limit.
const blocker = `${"a".repeat(199_999)}@`;

interface Flood {
  /** Resolves with every answer, the blocker's first. */
  done: Promise<APIResponse[]>;
  statuses: number[];
}

/** Saves a comment that holds the render thread, then `count` small comments at once, which fill the waiting line. */
async function flood(request: APIRequestContext, owner: CreatedUser, notesUrl: string, count: number): Promise<Flood> {
  const statuses: number[] = [];
  const post = (body: string) =>
    request.post(notesUrl, { headers: asToken(owner.token), data: { body } }).then((response) => {
      statuses.push(response.status());
      return response;
    });
  const blocking = post(blocker);
  // Long enough for the blocker to reach the thread on a loaded machine, and leaves most of its time limit.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const small = Array.from({ length: count }, (_, index) => post(`small ${index}`));
  return { done: Promise.all([blocking, ...small]), statuses };
}

test("saves that find the render line full are refused with 429 and Retry-After, and nothing of them is stored", async ({ request }) => {
  const owner = await createUser(request);
  const project = await createProject(request, owner.token, { visibility: "public" });
  const issues = `/api/v4/projects/${project.id}/issues`;
  expect((await request.post(issues, { headers: asToken(owner.token), data: { title: "Flooded" } })).status()).toBe(201);

  const { done } = await flood(request, owner, `${issues}/1/notes`, waitingLine + 16);
  const [blocked, ...answers] = await done;
  expect(blocked!.status()).toBe(201);
  const accepted = answers.filter((answer) => answer.status() === 201);
  const refused = answers.filter((answer) => answer.status() !== 201);
  // The line took at least its 64 (more if some arrived after the blocker's time was up); the rest were refused.
  expect(accepted.length).toBeGreaterThanOrEqual(waitingLine);
  expect(refused.length).toBeGreaterThanOrEqual(1);
  for (const answer of refused) {
    expect(answer.status()).toBe(429);
    expect(answer.headers()["retry-after"]).toBe(retryAfter);
    expect(await answer.json()).toEqual({ message: "429 Too Many Requests - too much text is waiting to be rendered, retry later" });
  }

  const notes = await request.get(`${issues}/1/notes?per_page=100`, { headers: asToken(owner.token) });
  expect(notes.headers()["x-total"]).toBe(String(1 + accepted.length));
  const page = await request.get(`/${project.path_with_namespace}/-/issues/1`);
  expect(page.status()).toBe(200);
  const { body } = (await accepted[0]!.json()) as { body: string };
  expect(await page.text()).toContain(`<div class="markdown comment-body"><p>${body}</p></div>`);
});

test("a comment posted on the issue page while the render line is full gets a form error, and posts once it drains", async ({ page, request }) => {
  const owner = await createUser(request);
  const project = await createProject(request, owner.token, { visibility: "public" });
  const issues = `/api/v4/projects/${project.id}/issues`;
  expect((await request.post(issues, { headers: asToken(owner.token), data: { title: "Flooded page" } })).status()).toBe(201);
  await signIn(page, owner.username, owner.password);
  await page.goto(`/${project.path_with_namespace}/-/issues/1`);
  await page.getByRole("textbox", { name: "Comment" }).fill("posted *later*");

  const { done, statuses } = await flood(request, owner, `${issues}/1/notes`, waitingLine + 16);
  await expect.poll(() => statuses.includes(429)).toBe(true);
  await page.getByRole("button", { name: "Comment", exact: true }).click();
  await expect(page.getByText(`Too much text is waiting to be displayed right now. Try again in ${retryAfter} seconds.`)).toBeVisible();

  await done;
  await page.getByRole("button", { name: "Comment", exact: true }).click();
  await expect(page.locator(".comment-body em", { hasText: "later" })).toBeVisible();
});
