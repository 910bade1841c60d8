import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { AdminNavigation } from "@/components/admin/admin-navigation";
import { InstanceSettingsForm } from "@/components/admin/instance-settings-form";
import { requireSessionContext } from "@/lib/auth/session";
import { ForbiddenError } from "@/lib/errors";
import { getInstanceSettings, type InstanceSettings } from "@/lib/instance/settings";
import { updateInstanceSettingsAction } from "./actions";

export const metadata: Metadata = { title: "Settings · Admin" };

/** GitLab's Admin area › Settings › General: what holds for the whole instance. */
export default async function AdminApplicationSettingsPage() {
  const ctx = await requireSessionContext("/admin/application_settings/general");
  let settings: InstanceSettings;
  try {
    settings = await getInstanceSettings(ctx);
  } catch (error) {
    // The admin area does not exist for anyone else.
    if (error instanceof ForbiddenError) notFound();
    throw error;
  }
  return (
    <>
      <AdminNavigation current="settings" />
      <div className="page-header">
        <div>
          <h1>Settings</h1>
          <p className="muted">Admin area: settings of the whole instance.</p>
        </div>
      </div>
      <InstanceSettingsForm settings={settings} save={updateInstanceSettingsAction} />
    </>
  );
}
