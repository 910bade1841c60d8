"use client";

import { signOut } from "next-auth/react";
import { useState } from "react";

export function SignOutButton() {
  const [pending, setPending] = useState(false);
  return (
    <button
      type="button"
      className="nav-button"
      disabled={pending}
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
