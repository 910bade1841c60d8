"use client";

import { useEffect, useId, useRef, useState, type KeyboardEvent } from "react";
import type { UseFormRegisterReturn } from "react-hook-form";
import { FieldError } from "@/components/ui/text-field";
import type { ActionResult } from "@/lib/forms/action-result";

export interface UserSuggestion {
  username: string;
  name: string;
}

/**
 * A username box that suggests people as one types part of a username or name (WAI-ARIA combobox with a listbox
 * popup): arrows move, Enter or a click fills the username, Escape closes. Any typed username is still accepted.
 */
export function UserSearchField({
  label,
  registration,
  error,
  suggest,
  onChoose,
}: {
  label: string;
  registration: UseFormRegisterReturn;
  error?: string;
  suggest: (query: string) => Promise<ActionResult<UserSuggestion[]>>;
  onChoose: (username: string) => void;
}) {
  const id = useId();
  const listId = `${id}-list`;
  const errorId = `${id}-error`;
  const [query, setQuery] = useState("");
  const [suggestions, setSuggestions] = useState<UserSuggestion[]>([]);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const latestQuery = useRef("");

  useEffect(() => {
    const needle = query.trim().replace(/^@/, "");
    latestQuery.current = needle;
    if (needle === "") return;
    // Waits for a pause in typing, and keeps only the answer to the latest query.
    const timer = setTimeout(async () => {
      const result = await suggest(needle);
      if (latestQuery.current !== needle) return;
      setSuggestions(result.ok ? result.data : []);
      setActive(-1);
    }, 200);
    return () => clearTimeout(timer);
  }, [query, suggest]);

  function choose(suggestion: UserSuggestion) {
    onChoose(suggestion.username);
    setOpen(false);
    setSuggestions([]);
  }

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    if (!open || suggestions.length === 0) return;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      const step = event.key === "ArrowDown" ? 1 : -1;
      setActive((current) => (current + step + suggestions.length) % suggestions.length);
    } else if (event.key === "Enter" && active >= 0) {
      event.preventDefault();
      choose(suggestions[active]!);
    } else if (event.key === "Escape") {
      event.preventDefault();
      setOpen(false);
    }
  }

  const expanded = open && query.trim() !== "" && suggestions.length > 0;
  return (
    <div className="field combobox">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="text"
        role="combobox"
        autoComplete="off"
        aria-expanded={expanded}
        aria-controls={listId}
        aria-autocomplete="list"
        aria-activedescendant={expanded && active >= 0 ? `${id}-option-${active}` : undefined}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? errorId : undefined}
        {...registration}
        onChange={(event) => {
          void registration.onChange(event);
          setQuery(event.target.value);
          setOpen(true);
        }}
        onBlur={(event) => {
          void registration.onBlur(event);
          setOpen(false);
        }}
        onKeyDown={onKeyDown}
      />
      <ul role="listbox" id={listId} aria-label="Suggested users" className="combobox-list" hidden={!expanded}>
        {suggestions.map((suggestion, index) => (
          <li
            key={suggestion.username}
            id={`${id}-option-${index}`}
            role="option"
            aria-selected={index === active}
            className={index === active ? "combobox-option active" : "combobox-option"}
            // Keep the focus in the text box so the blur does not close the list before the click lands.
            onMouseDown={(event) => event.preventDefault()}
            onClick={() => choose(suggestion)}
            onMouseEnter={() => setActive(index)}
          >
            {suggestion.name} <span className="muted">@{suggestion.username}</span>
          </li>
        ))}
      </ul>
      <FieldError id={errorId} message={error} />
    </div>
  );
}
