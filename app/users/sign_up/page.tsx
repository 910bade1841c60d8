import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { SignUpForm } from "@/components/auth/sign-up-form";
import { Notice } from "@/components/ui/notice";
import { getSessionUser } from "@/lib/auth/session";
import { isSignUpEnabled } from "@/lib/auth/sign-up";
import { signUpAction } from "./actions";

export const metadata: Metadata = { title: "Register" };

export default async function SignUpPage() {
  if (await getSessionUser()) redirect("/projects");
  return (
    <div className="narrow">
      <h1>Register</h1>
      {isSignUpEnabled() ? (
        <div className="card section">
          <SignUpForm signUp={signUpAction} />
        </div>
      ) : (
        <div className="section">
          <Notice tone="info">Registration is disabled on this instance. Ask an administrator to create an account for you.</Notice>
        </div>
      )}
      <p>
        Already have an account? <Link href="/users/sign_in">Sign in</Link>
      </p>
    </div>
  );
}
