// passport-gitlab2 ships no types: what the relying-party test uses of it, as its README and source describe it.
declare module "passport-gitlab2" {
  import OAuth2Strategy from "passport-oauth2";

  export interface GitLabProfile {
    provider: "gitlab";
    id: string;
    username: string;
    displayName: string;
    emails: { value: string }[];
    avatarUrl: string;
    profileUrl: string;
    _json: Record<string, unknown>;
  }

  export interface GitLabStrategyOptions {
    clientID: string;
    clientSecret: string;
    callbackURL: string;
    /** The GitLab instance; gitlab.com when left out. */
    baseURL?: string;
    scope?: string | string[];
  }

  export class Strategy extends OAuth2Strategy {
    constructor(
      options: GitLabStrategyOptions,
      verify: (accessToken: string, refreshToken: string, profile: GitLabProfile, done: (error: unknown, user?: Express.User) => void) => void,
    );
  }
}
