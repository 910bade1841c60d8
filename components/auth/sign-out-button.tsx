"use client";

import { signOut } from "next-auth/react";
import { useState } from "react";
import { useHydrated } from "@/components/ui/use-hydrated";

export function SignOutButton() {
  const [pending, setPending] = useState(false);
  // A click before React has taken the page over would do nothing: the button waits.
  const hydrated = useHydrated();
  return (
    <button
      type="button"
      className="nav-button"
      disabled={pending || !hydrated}
      onClick={() => {
        setPending(true);
        // A full page load afterwards, so no page rendered for the signed-in user stays in the router's cache.
        void signOut({ callbackUrl: "/users/sign_in" });
      }}
    >
      Sign out
    </button>
  );
}
