import { redirect } from "next/navigation";
import { getSessionUser } from "@/lib/auth/session";

export default async function HomePage() {
  redirect((await getSessionUser()) ? "/projects" : "/users/sign_in");
}
