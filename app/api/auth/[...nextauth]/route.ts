import { handleNextAuthRequest } from "@/lib/auth/next-auth-route";

export { handleNextAuthRequest as GET, handleNextAuthRequest as POST };
