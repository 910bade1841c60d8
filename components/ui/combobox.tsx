"use client";

import { useId, useMemo, useState, type KeyboardEvent } from "react";

export interface ComboboxOption {
  value: string;
  label: string;
  description?: string;
}

/**
 * A searchable single-choice dropdown (WAI-ARIA combobox with a listbox popup): typing filters the options, arrows
 * move, Enter or a click chooses, Escape closes. The text box shows the chosen option while closed.
 */
export function Combobox({
  label,
  options,
  value,
  onChange,
  placeholder = "Select…",
  emptyText = "No matching options",
}: {
  label: string;
  options: ComboboxOption[];
  value: string | null;
  onChange: (value: string | null) => void;
  placeholder?: string;
  emptyText?: string;
}) {
  const id = useId();
  const listId = `${id}-list`;
  const [open, setOpen] = useState(false);
  const [query, setQuery] = useState("");
  const [active, setActive] = useState(0);
  const selected = options.find((option) => option.value === value) ?? null;
  const filtered = useMemo(() => {
    const needle = query.trim().toLowerCase();
    return needle === "" ? options : options.filter((option) => option.label.toLowerCase().includes(needle));
  }, [options, query]);

  function openList() {
    setOpen(true);
    setQuery("");
    setActive(Math.max(0, options.findIndex((option) => option.value === value)));
  }

  function choose(option: ComboboxOption) {
    onChange(option.value);
    setOpen(false);
    setQuery("");
  }

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      if (!open) return openList();
      const step = event.key === "ArrowDown" ? 1 : -1;
      setActive((current) => (filtered.length === 0 ? 0 : (current + step + filtered.length) % filtered.length));
    } else if (event.key === "Enter" && open) {
      event.preventDefault();
      const option = filtered[active];
      if (option) choose(option);
    } else if (event.key === "Escape" && open) {
      event.preventDefault();
      setOpen(false);
    }
  }

  const activeOption = open ? filtered[active] : undefined;
  return (
    <div className="combobox">
      <div className="combobox-control">
        <input
          type="text"
          role="combobox"
          aria-label={label}
          aria-expanded={open}
          aria-controls={listId}
          aria-autocomplete="list"
          aria-activedescendant={activeOption ? `${id}-option-${filtered.indexOf(activeOption)}` : undefined}
          autoComplete="off"
          placeholder={placeholder}
          value={open ? query : (selected?.label ?? "")}
          onFocus={openList}
          onClick={() => (open ? undefined : openList())}
          onBlur={() => setOpen(false)}
          onChange={(event) => {
            setQuery(event.target.value);
            setActive(0);
            setOpen(true);
          }}
          onKeyDown={onKeyDown}
        />
        {selected ? (
          <button type="button" className="button button-secondary button-small" aria-label={`Clear ${label}`} onClick={() => onChange(null)}>
            ×
          </button>
        ) : null}
      </div>
      {open ? (
        <ul role="listbox" id={listId} aria-label={label} className="combobox-list">
          {filtered.length === 0 ? <li className="muted combobox-empty">{emptyText}</li> : null}
          {filtered.map((option, index) => (
            <li
              key={option.value}
              id={`${id}-option-${index}`}
              role="option"
              aria-selected={option.value === value}
              className={index === active ? "combobox-option active" : "combobox-option"}
              // Keep the focus in the text box so the blur does not close the list before the click lands.
              onMouseDown={(event) => event.preventDefault()}
              onClick={() => choose(option)}
              onMouseEnter={() => setActive(index)}
            >
              {option.label}
              {option.description ? <span className="muted"> {option.description}</span> : null}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
