import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createdWith, noContentAnswer, okWith, responseMismatches, type EndpointResponse } from "./responses";

const named = z.strictObject({ id: z.number().int(), name: z.string().nullable() });

function answer(status: number, body: unknown) {
  return { status, headers: {}, body: body === undefined ? null : JSON.stringify(body) };
}

describe("responseMismatches", () => {
  it("finds nothing in an answer its schema takes", () => {
    expect(responseMismatches(okWith(named), answer(200, { id: 1, name: null }))).toEqual([]);
    expect(responseMismatches(noContentAnswer, answer(204, undefined))).toEqual([]);
    expect(responseMismatches({ status: [200, 202], body: named }, answer(202, { id: 1, name: "a" }))).toEqual([]);
  });

  it("names a wrong type, a missing field and a field the schema does not have", () => {
    expect(responseMismatches(okWith(named), answer(200, { id: "1", name: null }))).toEqual(["id: Invalid input: expected number, received string"]);
    expect(responseMismatches(okWith(named), answer(200, { id: 1 }))).toEqual(["name: Invalid input: expected string, received undefined"]);
    expect(responseMismatches(okWith(named), answer(200, { id: 1, name: "a", extra: true }))).toEqual(['(body): Unrecognized key: "extra"']);
    expect(responseMismatches(okWith(z.array(named)), answer(200, [{ id: 1, name: "a" }, { id: 2.5, name: "b" }]))).toEqual([
      "1.id: Invalid input: expected int, received number",
    ]);
  });

  it("names each option's faults when no option of a union fits", () => {
    const either: EndpointResponse = okWith(z.union([named, z.strictObject({ message: z.string() })]));
    expect(responseMismatches(either, answer(200, { id: 1 }))).toEqual([
      "[option 1] name: Invalid input: expected string, received undefined",
      "[option 2] message: Invalid input: expected string, received undefined",
      '[option 2] (body): Unrecognized key: "id"',
    ]);
  });

  it("refuses a success in another status than the declared one, or a body where none is declared", () => {
    expect(responseMismatches(createdWith(named), answer(200, { id: 1, name: null }))).toEqual(["answered 200, declared 201"]);
    expect(responseMismatches(noContentAnswer, answer(204, {}))).toEqual(["answered a body, declared none"]);
  });

  it("leaves errors and 304 alone: they are not the entity", () => {
    expect(responseMismatches(okWith(named), answer(404, { message: "404 Not Found" }))).toEqual([]);
    expect(responseMismatches(okWith(named), answer(304, undefined))).toEqual([]);
  });
});
