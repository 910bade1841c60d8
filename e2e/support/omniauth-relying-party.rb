# A relying party built on OmniAuth GitLab (omniauth-gitlab with omniauth-oauth2), as Debian ships them, for the
# end-to-end tests: a Rack application with the provider configured as omniauth-gitlab's README says for a GitLab of
# one's own ("Standalone Usage": the key, the secret and `client_options: { site: ... }`, no scope, so GitLab's default
# `api`), behind OmniAuth 2's own request protection: the sign-in starts with a POST carrying the session's
# authenticity token. `/auth/gitlab/callback` answers the auth hash OmniAuth built, as JSON, tokens left out.
require "json"
require "rack"
require "rack/protection"
require "omniauth-gitlab"
require "webrick"

port = Integer(ENV.fetch("RELYING_PARTY_PORT"))
OmniAuth.config.logger = Logger.new($stderr)
# OmniAuth's default answer to a failure is a redirect that hides why; the test wants the reason.
OmniAuth.config.on_failure = proc do |env|
  error = env["omniauth.error"]
  [500, { "Content-Type" => "text/plain" }, ["#{env['omniauth.error.type']}: #{error&.class}: #{error&.message}"]]
end

home = lambda do |env|
  token = Rack::Protection::AuthenticityToken.token(env["rack.session"])
  page = <<~HTML
    <!DOCTYPE html>
    <title>OmniAuth relying party</title>
    <form method="post" action="/auth/gitlab">
      <input type="hidden" name="authenticity_token" value="#{Rack::Utils.escape_html(token)}">
      <button>Sign in with GitLab</button>
    </form>
  HTML
  [200, { "Content-Type" => "text/html" }, [page]]
end

callback = lambda do |env|
  auth = env["omniauth.auth"]
  body = { provider: auth.provider, uid: auth.uid, info: auth.info.to_hash, raw_info: auth.extra.raw_info.to_hash,
           credentials: { expires: auth.credentials.expires, expires_at: auth.credentials.expires_at,
                          has_token: !auth.credentials.token.to_s.empty?,
                          has_refresh_token: !auth.credentials.refresh_token.to_s.empty? } }
  [200, { "Content-Type" => "application/json" }, [JSON.generate(body)]]
end

app = Rack::Builder.new do
  use Rack::Session::Cookie, secret: ENV.fetch("RELYING_PARTY_SESSION_SECRET"), same_site: :lax
  use OmniAuth::Builder do
    provider :gitlab, ENV.fetch("GITLAB_KEY"), ENV.fetch("GITLAB_SECRET"),
             {
               client_options: {
                 site: ENV.fetch("GITLAB_URL")
               }
             }
  end
  map("/auth/gitlab/callback") { run callback }
  map("/") { run home }
end

Rack::Handler::WEBrick.run(app, Host: "127.0.0.1", Port: port, AccessLog: [], Logger: WEBrick::Log.new($stderr, WEBrick::Log::WARN),
                                StartCallback: -> { $stdout.puts("listening"); $stdout.flush })
