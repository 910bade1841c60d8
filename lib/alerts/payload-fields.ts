import { isPlainObject } from "./json-values";
import { eachElement, isEachElement, type PathSegment, type PayloadFieldType, type PayloadPath } from "./fields";

export interface PayloadField {
  path: PayloadPath;
  label: string;
  type: PayloadFieldType;
}

/**
 * Bounds of the field list a sample payload gives, so a large sample cannot make a large answer: at most `fields`
 * fields, none with more than `pathSegments` steps or a label longer than `labelCharacters`, and at most
 * `answerCharacters` of JSON in all. When a sample has more, the fields that name no element by index come first
 * (the payload's keys and `[*]` paths, which read every alert of its kind); then those through one index, the first
 * element's before the second's; then those through two, and so on; among equals, nearer the top before deeper. The
 * kept fields are listed in the payload's order.
 */
export const payloadFieldLimits = { fields: 1000, pathSegments: 20, labelCharacters: 255, answerCharacters: 256 * 1024 } as const;

/** A path in the tree of fields: one per distinct path, however many values of the payload reach it. */
interface FieldNode {
  parent: FieldNode | null;
  segment: PathSegment | null;
  depth: number;
  /** The array indices on the path, in order. */
  indices: number[];
  labelLength: number;
  offered: boolean;
  /** By segment (a key, an index, or `eachElement`); null where the path would be over the bounds. */
  children: Map<PathSegment, FieldNode | null>;
}

/** One value of the payload reached along one path, with its place among the values its parent's visit reached. */
interface Visit {
  value: unknown;
  node: FieldNode;
  underEach: boolean;
  parent: Visit | null;
  rank: number;
}

/**
 * The fields of a sample payload a mapping can point at (GitLab's AlertPayloadFieldExtractor, extended): strings (as
 * `datetime` when they start with four digits), numbers (epoch times, numeric levels), and arrays: the array itself,
 * then — when it holds objects — every key found in them across all elements (`items[*]/host`, an array), then each
 * element by index. Booleans and null are not offered. Within `payloadFieldLimits`. Pure.
 *
 * The payload is read one level at a time, each value once per path that reaches it (at most 20), so the work is
 * proportional to the payload; each field remembers where the depth-first order of the payload puts it.
 */
export function extractPayloadFields(payload: Record<string, unknown>): PayloadField[] {
  const root: FieldNode = { parent: null, segment: null, depth: 0, indices: [], labelLength: 0, offered: true, children: new Map() };
  // Found level by level, so by depth and, within a depth, in the payload's order.
  const offered: { visit: Visit; type: PayloadFieldType }[] = [];
  let level: Visit[] = [{ value: payload, node: root, underEach: false, parent: null, rank: 0 }];
  while (level.length > 0) {
    const nextLevel: Visit[] = [];
    for (const visit of level) {
      const type = visit.node.offered ? null : fieldType(visit.value, visit.underEach);
      if (type) {
        visit.node.offered = true;
        offered.push({ visit, type });
      }
      if (visit.node.depth < payloadFieldLimits.pathSegments) visitChildren(visit, nextLevel);
    }
    level = nextLevel;
  }
  // A stable sort: equals stay by depth, then in the payload's order.
  offered.sort(({ visit: { node: a } }, { visit: { node: b } }) => a.indices.length - b.indices.length || compareOrders(a.indices, b.indices) || a.depth - b.depth);
  const kept: { order: number[]; field: PayloadField }[] = [];
  let answerCharacters = 2;
  for (const { visit, type } of offered) {
    const path = pathOf(visit.node);
    const field = { path, label: pathLabel(path), type };
    answerCharacters += JSON.stringify(field).length + (kept.length > 0 ? 1 : 0);
    if (kept.length === payloadFieldLimits.fields || answerCharacters > payloadFieldLimits.answerCharacters) break;
    kept.push({ order: orderOf(visit), field });
  }
  return inPayloadOrder(kept);
}

function fieldType(value: unknown, underEach: boolean): PayloadFieldType | null {
  if (typeof value === "string") return underEach ? "array" : /^\d{4}/.test(value) ? "datetime" : "string";
  if (typeof value === "number" && Number.isFinite(value)) return underEach ? "array" : "number";
  if (Array.isArray(value)) return "array";
  return null;
}

/** An array's objects through `[*]` first, then (outside `[*]`) each element by index; an object's keys in order. */
function visitChildren(visit: Visit, nextLevel: Visit[]): void {
  const { value, node, underEach } = visit;
  let rank = 0;
  const enqueue = (item: unknown, segment: PathSegment, itemUnderEach: boolean) => {
    const child = childNode(node, segment);
    if (child) nextLevel.push({ value: item, node: child, underEach: itemUnderEach, parent: visit, rank });
    rank++;
  };
  if (Array.isArray(value)) {
    for (const item of value) if (isPlainObject(item)) enqueue(item, eachElement, true);
    if (!underEach) value.forEach((item, index) => enqueue(item, index, false));
  } else if (isPlainObject(value)) {
    for (const [key, item] of Object.entries(value)) enqueue(item, key, underEach);
  }
}

function childNode(parent: FieldNode, segment: PathSegment): FieldNode | null {
  const known = parent.children.get(segment);
  if (known !== undefined) return known;
  let child: FieldNode | null = null;
  const partLength = typeof segment === "string" && segment.length > payloadFieldLimits.labelCharacters ? Infinity : segmentLabel(segment).length;
  const labelLength = parent.labelLength + partLength + (typeof segment === "string" && parent.depth > 0 ? 1 : 0);
  if (labelLength <= payloadFieldLimits.labelCharacters) {
    const indices = typeof segment === "number" ? [...parent.indices, segment] : parent.indices;
    child = { parent, segment, depth: parent.depth + 1, indices, labelLength, offered: false, children: new Map() };
  }
  parent.children.set(segment, child);
  return child;
}

function pathOf(node: FieldNode): PayloadPath {
  const path: PayloadPath = [];
  for (let current: FieldNode | null = node; current && current.segment !== null; current = current.parent) path.push(current.segment);
  return path.reverse();
}

function orderOf(visit: Visit): number[] {
  const order: number[] = [];
  for (let current: Visit | null = visit; current?.parent; current = current.parent) order.push(current.rank);
  return order.reverse();
}

function inPayloadOrder(kept: { order: number[]; field: PayloadField }[]): PayloadField[] {
  return kept.sort((a, b) => compareOrders(a.order, b.order)).map(({ field }) => field);
}

/** Depth-first order (or indices' order): the first differing place decides, and a prefix comes first. */
function compareOrders(a: number[], b: number[]): number {
  for (let index = 0; index < Math.min(a.length, b.length); index++) {
    if (a[index] !== b[index]) return a[index]! - b[index]!;
  }
  return a.length - b.length;
}

/** Keys that would read as path syntax, or as nothing, are quoted so every label names one path. */
const plainKey = /^[^/.[\]"*\s]+$/;

function keyLabel(key: string): string {
  return plainKey.test(key) ? key : JSON.stringify(key);
}

function segmentLabel(segment: PathSegment): string {
  if (isEachElement(segment)) return "[*]";
  return typeof segment === "number" ? `[${segment}]` : keyLabel(segment);
}

/** `["a", "b", 0, "c"]` → `a/b[0]/c`; `["items", {each: true}, "host"]` → `items[*]/host`; `["a/b"]` → `"a/b"`. */
export function pathLabel(path: PayloadPath): string {
  return path.reduce<string>((label, segment) => {
    const part = segmentLabel(segment);
    if (typeof segment !== "string" || label === "") return label + part;
    return `${label}/${part}`;
  }, "");
}

/**
 * The value at a path, like Ruby's `dig`; undefined when any step is missing. Only a payload's own keys are steps
 * (never what every object inherits, such as `constructor` or `__proto__`), and indices only within the array. An
 * `{each: true}` step reads the rest of the path in every element and yields the list of what was found (nested lists
 * flattened, misses dropped). Each value of the payload is read at most once per step of the path.
 */
export function valueAtPath(payload: unknown, path: PayloadPath): unknown {
  const firstEach = path.findIndex(isEachElement);
  if (firstEach < 0) return stepsFrom(payload, path, 0, path.length);
  const list = stepsFrom(payload, path, 0, firstEach);
  if (!Array.isArray(list)) return undefined;
  // Where the next `[*]` at or after each step is, so no element's walk looks for it again.
  const nextEach: number[] = Array.from({ length: path.length + 1 }, () => -1);
  for (let index = path.length - 1; index >= 0; index--) nextEach[index] = isEachElement(path[index]!) ? index : nextEach[index + 1]!;
  const found: unknown[] = [];
  collectEach(list, path, firstEach + 1, nextEach, found);
  return found;
}

function collectEach(list: unknown[], path: PayloadPath, from: number, nextEach: number[], found: unknown[]): void {
  const each = nextEach[from]!;
  for (const item of list) {
    const value = stepsFrom(item, path, from, each < 0 ? path.length : each);
    if (each < 0) {
      if (value !== undefined) found.push(value);
    } else if (Array.isArray(value)) {
      collectEach(value, path, each + 1, nextEach, found);
    }
  }
}

function stepsFrom(value: unknown, path: PayloadPath, from: number, to: number): unknown {
  let current = value;
  for (let index = from; index < to && current !== undefined; index++) current = ownValue(current, path[index]!);
  return current;
}

/** The value a payload holds itself under a key or index, or undefined. */
export function ownValue(container: unknown, segment: PathSegment): unknown {
  if (typeof segment === "number") return Array.isArray(container) && segment < container.length ? container[segment] : undefined;
  if (typeof segment !== "string" || !isPlainObject(container) || !Object.hasOwn(container, segment)) return undefined;
  return container[segment];
}
