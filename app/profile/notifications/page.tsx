import type { Metadata } from "next";
import { ProfilePageHeader } from "@/components/profile/profile-page-header";
import { NotificationSettings } from "@/components/profile/notification-settings";
import { requireSessionContext } from "@/lib/auth/session";
import { getOwnNotificationSettings } from "@/lib/users/notification-settings";
import { updateNotificationSettingsAction } from "./actions";

export const metadata: Metadata = { title: "Notifications" };

/** Profile → Notifications (GitLab's `/-/profile/notifications`): which emails the account gets. */
export default async function NotificationsPage() {
  const ctx = await requireSessionContext("/profile/notifications");
  const settings = await getOwnNotificationSettings(ctx);
  return (
    <>
      <ProfilePageHeader title="Notifications">Choose which emails you get.</ProfilePageHeader>
      <NotificationSettings settings={settings} save={updateNotificationSettingsAction} />
    </>
  );
}
