import { z } from "zod";
import { booleanParam, clearableDateParam, dateTimeParam, integerListParam, integerParam, searchParam, stringListParam } from "@/lib/api/param-types";
import { issueTypes } from "@/lib/db/schema";
import { ParameterError } from "@/lib/errors";
import { splitLabelNames } from "./label-rules";

/**
 * What an issue is filed under when it is created or edited (`issue_params` in GitLab's `lib/api/issues.rb`): label
 * names, assignees (`assignee_id` is the older single form and wins), milestone and due date.
 */
export const issueMetadataParams = {
  labels: stringListParam.optional(),
  assignee_ids: integerListParam.optional(),
  assignee_id: integerParam.nullable().optional(),
  milestone_id: integerParam.nullable().optional(),
  due_date: clearableDateParam.optional(),
};

/** `issue_type` on creation: an issue or an incident (the types this service has). */
export const issueTypeParam = z.enum(issueTypes);

type IssueMetadataParams = z.infer<z.ZodObject<typeof issueMetadataParams>>;

export function issueMetadataFrom(params: IssueMetadataParams) {
  return {
    labels: params.labels,
    assigneeIds: params.assignee_id === undefined || params.assignee_id === null ? params.assignee_ids : [params.assignee_id],
    milestoneId: params.milestone_id,
    dueDate: params.due_date,
  };
}

/**
 * The filters of GitLab's issue lists (`GET /issues`, `GET /projects/:id/issues`), as `lib/api/helpers/issues_helpers`
 * and `IssuesFinder` read them. Pure: the routes declare these parameters and map them with `issueFiltersFrom`.
 */
export const issueOrderColumns = [
  "created_at",
  "due_date",
  "label_priority",
  "milestone_due",
  "popularity",
  "priority",
  "relative_position",
  "title",
  "updated_at",
] as const;
export type IssueOrderColumn = (typeof issueOrderColumns)[number];

export type IssueScope = "created_by_me" | "assigned_to_me" | "all";

export interface IssueFilters {
  state?: "opened" | "closed" | "all";
  scope?: IssueScope;
  /** Every one of these labels (AND); or issues with no label / any label. */
  labels?: { kind: "all-of"; names: string[] } | { kind: "none" } | { kind: "any" };
  milestone?: { kind: "title"; title: string } | { kind: "none" | "any" | "upcoming" | "started" };
  authorId?: number;
  authorUsername?: string;
  assignee?: { kind: "id"; id: number } | { kind: "none" } | { kind: "any" };
  /** Assigned to every one of these users. */
  assigneeUsernames?: string[];
  search?: string;
  /** Where `search` looks: title, description or both (the default). */
  searchIn?: ("title" | "description")[];
  createdAfter?: Date;
  createdBefore?: Date;
  updatedAfter?: Date;
  updatedBefore?: Date;
  iids?: number[];
  confidential?: boolean;
  orderBy?: IssueOrderColumn;
  sort?: "asc" | "desc";
}

/** `None` and `Any` in any case, as GitLab's `integer_none_any` parameters take them, or an integer. */
const integerNoneAnyParam = z.union([integerParam, z.string().regex(/^(?:none|any)$/i)]);

export const issueListParams = {
  state: z.enum(["opened", "closed", "all"]).optional(),
  scope: z.enum(["created_by_me", "assigned_to_me", "all", "created-by-me", "assigned-to-me"]).optional(),
  labels: stringListParam.optional(),
  milestone: z.string().optional(),
  milestone_id: z.enum(["Any", "None", "Upcoming", "Started"]).optional(),
  iids: integerListParam.optional(),
  author_id: integerParam.optional(),
  author_username: z.string().optional(),
  assignee_id: integerNoneAnyParam.optional(),
  assignee_username: stringListParam.optional(),
  search: searchParam.optional(),
  in: z.string().optional(),
  created_after: dateTimeParam.optional(),
  created_before: dateTimeParam.optional(),
  updated_after: dateTimeParam.optional(),
  updated_before: dateTimeParam.optional(),
  confidential: booleanParam.optional(),
  order_by: z.enum(issueOrderColumns).optional(),
  sort: z.enum(["asc", "desc"]).optional(),
  with_labels_details: booleanParam.optional(),
};

type IssueListParams = z.infer<z.ZodObject<typeof issueListParams>>;

function mutuallyExclusive(params: IssueListParams, names: (keyof IssueListParams)[]): void {
  if (names.filter((name) => params[name] !== undefined).length > 1) throw new ParameterError(names.join(", "), "are mutually exclusive");
}

function milestoneFilter(params: IssueListParams): IssueFilters["milestone"] {
  if (params.milestone_id !== undefined) return { kind: params.milestone_id.toLowerCase() as "none" | "any" | "upcoming" | "started" };
  const title = params.milestone;
  if (title === undefined || title === "") return undefined;
  // GitLab's older spellings of the wildcards still work.
  if (title.toLowerCase() === "none" || title === "No Milestone") return { kind: "none" };
  if (title.toLowerCase() === "any" || title === "Any Milestone") return { kind: "any" };
  if (title === "#upcoming") return { kind: "upcoming" };
  if (title === "#started") return { kind: "started" };
  return { kind: "title", title };
}

function labelFilter(names: string[] | undefined): IssueFilters["labels"] {
  const split = splitLabelNames(names ?? []);
  if (split.length === 0) return undefined;
  const lowered = split.map((name) => name.toLowerCase());
  if (lowered.includes("none") || split.includes("No Label")) return { kind: "none" };
  if (lowered.includes("any")) return { kind: "any" };
  return { kind: "all-of", names: split };
}

function assigneeFilter(value: number | string | undefined): IssueFilters["assignee"] {
  if (value === undefined) return undefined;
  if (typeof value === "number") return { kind: "id", id: value };
  return { kind: value.toLowerCase() === "none" ? "none" : "any" };
}

/** The declared list parameters as filters, refusing what GitLab refuses (mutually exclusive pairs). */
export function issueFiltersFrom(params: IssueListParams): IssueFilters {
  mutuallyExclusive(params, ["milestone_id", "milestone"]);
  mutuallyExclusive(params, ["author_id", "author_username"]);
  mutuallyExclusive(params, ["assignee_id", "assignee_username"]);
  const searchIn = (params.in ?? "")
    .split(",")
    .map((column) => column.trim())
    .filter((column): column is "title" | "description" => column === "title" || column === "description");
  const assigneeUsernames = params.assignee_username?.filter((username) => username !== "");
  return {
    state: params.state,
    scope: params.scope?.replaceAll("-", "_") as IssueScope | undefined,
    labels: labelFilter(params.labels),
    milestone: milestoneFilter(params),
    authorId: params.author_id,
    authorUsername: params.author_username,
    assignee: assigneeFilter(params.assignee_id),
    assigneeUsernames: assigneeUsernames && assigneeUsernames.length > 0 ? assigneeUsernames : undefined,
    search: params.search,
    searchIn: searchIn.length > 0 ? searchIn : undefined,
    createdAfter: params.created_after,
    createdBefore: params.created_before,
    updatedAfter: params.updated_after,
    updatedBefore: params.updated_before,
    iids: params.iids && params.iids.length > 0 ? params.iids : undefined,
    confidential: params.confidential,
    orderBy: params.order_by,
    sort: params.sort,
  };
}
