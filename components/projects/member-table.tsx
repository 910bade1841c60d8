"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import { useForm } from "react-hook-form";
import { useServerErrors } from "@/components/ui/use-server-errors";
import { DateText } from "@/components/ui/date-text";
import { FormFailureNotice } from "@/components/ui/form-failure";
import { Notice } from "@/components/ui/notice";
import { TableHead } from "@/components/ui/table-head";
import { useRowAction } from "@/components/ui/use-row-action";
import { FieldError } from "@/components/ui/text-field";
import type { ActionResult } from "@/lib/forms/action-result";
import { editMemberFormSchema, type EditMemberForm } from "@/lib/projects/form-schemas";
import { RoleSelectField } from "./role-select-field";

export interface MemberListItem {
  userId: number;
  name: string;
  username: string;
  role: string;
  accessLevel: number;
  since: string;
  /** The day the membership ends (`YYYY-MM-DD`, UTC), if it does. */
  expiresAt: string | null;
  /** It has ended: it grants nothing and waits for the scheduled job to remove it. */
  expired: boolean;
}

interface MemberTableProps {
  members: MemberListItem[];
  /** Present when the viewer may remove members (Maintainer or Owner). */
  remove?: (userId: number) => Promise<ActionResult>;
  /** Present when the viewer may change roles and end dates, with the roles they may hand out. */
  edit?: {
    update: (userId: number, values: EditMemberForm) => Promise<ActionResult<{ accessLevel: number; expiresAt: string | null }>>;
    roles: { accessLevel: number; name: string }[];
  };
  viewerId: number | null;
  /** What the members belong to, as the removal's confirmation names it. */
  source?: "project" | "group";
}

export function MemberTable({ members, remove, edit, viewerId, source = "project" }: MemberTableProps) {
  const { pendingId, failure, run } = useRowAction();
  const [saved, setSaved] = useState<string | null>(null);

  async function onRemove(member: MemberListItem) {
    if (!remove || !window.confirm(`Remove @${member.username} from the ${source}?`)) return;
    await run(member.userId, remove);
  }

  return (
    <>
      {failure ? <Notice tone="error">{failure}</Notice> : null}
      {saved ? <Notice tone="success">{saved}</Notice> : null}
      <table className="table">
        <TableHead columns={edit ? ["Name", "Username", "Role and expiry", "Member since"] : ["Name", "Username", "Role", "Member since", "Expires"]} actionsColumn={Boolean(remove)} />
        <tbody>
          {members.map((member) => (
            <tr key={member.userId}>
              <td className="long-text">
                {member.name}
                {member.userId === viewerId ? <span className="muted"> (you)</span> : null}
              </td>
              <td className="long-text">
                <Link href={`/${member.username}`}>@{member.username}</Link>
              </td>
              {edit ? (
                <td>
                  {edit.roles.some((role) => role.accessLevel === member.accessLevel) ? (
                    <MemberEditor member={member} roles={edit.roles} update={edit.update} onSaved={setSaved} />
                  ) : (
                    <>
                      {member.role}, expires {member.expiresAt ?? "never"}
                    </>
                  )}
                  <ExpiredBadge member={member} />
                </td>
              ) : (
                <td>{member.role}</td>
              )}
              <td>
                <DateText value={member.since} />
              </td>
              {edit ? null : (
                <td>
                  {member.expiresAt ?? "—"}
                  <ExpiredBadge member={member} />
                </td>
              )}
              {remove ? (
                <td className="actions">
                  {member.userId !== viewerId ? (
                    <button
                      type="button"
                      className="button button-danger button-small"
                      disabled={pendingId === member.userId}
                      aria-label={`Remove @${member.username}`}
                      onClick={() => onRemove(member)}
                    >
                      Remove
                    </button>
                  ) : null}
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

function ExpiredBadge({ member }: { member: MemberListItem }) {
  if (!member.expired) return null;
  return (
    <>
      {" "}
      <span className="badge badge-danger">expired</span>
    </>
  );
}

/** A member's role and end date, saved with the row's own button; errors show on the field they concern. */
function MemberEditor({
  member,
  roles,
  update,
  onSaved,
}: {
  member: MemberListItem;
  roles: { accessLevel: number; name: string }[];
  update: (userId: number, values: EditMemberForm) => Promise<ActionResult<{ accessLevel: number; expiresAt: string | null }>>;
  onSaved: (message: string) => void;
}) {
  const router = useRouter();
  const id = useId();
  const { register, handleSubmit, formState, setError, setFocus } = useForm<EditMemberForm>({
    resolver: zodResolver(editMemberFormSchema),
    defaultValues: { accessLevel: String(member.accessLevel) as EditMemberForm["accessLevel"], expiresAt: member.expiresAt ?? "" },
  });
  const { failure, report, clear } = useServerErrors({ setError, setFocus }, ["accessLevel", "expiresAt"]);
  const { errors } = formState;

  async function onSubmit(values: EditMemberForm) {
    clear();
    const result = await update(member.userId, values);
    if (!result.ok) {
      report(result);
      return;
    }
    const role = roles.find((candidate) => candidate.accessLevel === result.data.accessLevel)?.name ?? member.role;
    onSaved(`@${member.username} is now ${role}${result.data.expiresAt ? ` until ${result.data.expiresAt}` : " with no expiry date"}.`);
    router.refresh();
  }

  return (
    <div className="stack">
      <FormFailureNotice failure={failure} />
      <div className="member-edit">
        <RoleSelectField
          label={`Role of @${member.username}`}
          hideLabel
          registration={register("accessLevel")}
          error={errors.accessLevel?.message}
          roles={roles}
        />
        <div className="field">
          <label htmlFor={`${id}-expires`} className="visually-hidden">
            Expiration date of @{member.username}
          </label>
          <input
            id={`${id}-expires`}
            type="date"
            aria-invalid={errors.expiresAt ? true : undefined}
            aria-describedby={errors.expiresAt ? `${id}-expires-error` : undefined}
            {...register("expiresAt")}
          />
          <FieldError id={`${id}-expires-error`} message={errors.expiresAt?.message} />
        </div>
        <button
          type="button"
          className="button button-secondary button-small"
          disabled={formState.isSubmitting}
          aria-label={`Save role and expiry of @${member.username}`}
          onClick={handleSubmit(onSubmit)}
        >
          Save
        </button>
      </div>
    </div>
  );
}
