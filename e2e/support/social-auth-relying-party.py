"""A relying party built on python social-auth (social-core), as Debian ships it, for the end-to-end tests.

It is what a framework integration (social-app-django, social-app-flask) does, with the framework left out: a strategy
over one in-memory session, `/login/<backend>/` and `/complete/<backend>/` through social-core's own `do_auth` and
`do_complete`, and the library's own first pipeline steps (`social_details`, `social_uid`) deciding what it learnt of
the person. `/done`, where a successful login lands (`LOGIN_REDIRECT_URL`), answers that as JSON.

Settings are the ones social-core's documentation gives for each backend, from the environment:
- `gitlab` (GitLabOAuth2): SOCIAL_AUTH_GITLAB_KEY, SOCIAL_AUTH_GITLAB_SECRET, SOCIAL_AUTH_GITLAB_API_URL;
- `oidc` (OpenIdConnectAuth): SOCIAL_AUTH_OIDC_OIDC_ENDPOINT, SOCIAL_AUTH_OIDC_KEY, SOCIAL_AUTH_OIDC_SECRET.
"""
import json
import os
import sys
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

from social_core.actions import do_auth, do_complete
from social_core.strategy import BaseStrategy

PORT = int(os.environ["RELYING_PARTY_PORT"])
ORIGIN = f"http://127.0.0.1:{PORT}"

SETTINGS = {
    "SOCIAL_AUTH_AUTHENTICATION_BACKENDS": (
        "social_core.backends.gitlab.GitLabOAuth2",
        "social_core.backends.open_id_connect.OpenIdConnectAuth",
    ),
    # The default pipeline's first two steps, then ours instead of the database's user and association steps.
    "SOCIAL_AUTH_PIPELINE": (
        "social_core.pipeline.social_auth.social_details",
        "social_core.pipeline.social_auth.social_uid",
        "__main__.signed_in_user",
    ),
    "SOCIAL_AUTH_LOGIN_REDIRECT_URL": "/done",
    "SOCIAL_AUTH_LOGIN_ERROR_URL": "/error",
}
for name, value in os.environ.items():
    if name.startswith("SOCIAL_AUTH_"):
        SETTINGS[name] = value


class User:
    """Who signed in, as the pipeline left it."""

    is_authenticated = True
    is_active = True

    def __init__(self, backend, uid, details, response):
        self.backend = backend
        self.uid = uid
        self.details = details
        self.response = response


class Social:
    def __init__(self, provider, uid):
        self.provider = provider
        self.uid = uid


def signed_in_user(backend, uid, details, response, *args, **kwargs):
    # The tokens stay out of what the test sees; the rest is what the provider answered.
    answered = {key: value for key, value in response.items() if key not in ("access_token", "id_token", "refresh_token")}
    return {"user": User(backend.name, uid, details, answered), "social": Social(backend.name, uid)}


class Association:
    def __init__(self, id, server_url, handle):
        self.id = id
        self.server_url = server_url
        self.handle = handle


class AssociationStorage:
    """Where the OpenID Connect backend keeps the nonce it sent, until the ID token brings it back."""

    def __init__(self):
        self.rows = []

    def store(self, server_url, association):
        self.rows.append(Association(len(self.rows) + 1, server_url, association.handle))

    def get(self, server_url=None, handle=None):
        return [row for row in self.rows if row.server_url == server_url and row.handle == handle]

    def remove(self, ids):
        self.rows = [row for row in self.rows if row.id not in ids]


class UserStorage:
    @staticmethod
    def user_model():
        return User


class Storage:
    user = UserStorage()
    association = AssociationStorage()


SESSION = {}


class Strategy(BaseStrategy):
    def __init__(self, handler):
        super().__init__(Storage())
        self.handler = handler
        self.query = dict(parse_qsl(urlsplit(handler.path).query))

    def get_setting(self, name):
        return SETTINGS[name]

    def request_data(self, merge=True):
        return dict(self.query)

    def request_host(self):
        return f"127.0.0.1:{PORT}"

    def build_absolute_uri(self, path=None):
        return ORIGIN + (path or "")

    def redirect(self, url):
        return ("redirect", url)

    def html(self, content):
        return ("html", content)

    def session_get(self, name, default=None):
        return SESSION.get(name, default)

    def session_set(self, name, value):
        SESSION[name] = value

    def session_pop(self, name):
        return SESSION.pop(name, None)

    def request_is_secure(self):
        return False

    def request_path(self):
        return urlsplit(self.handler.path).path

    def request_port(self):
        return PORT

    def request_get(self):
        return dict(self.query)

    def request_post(self):
        return {}


def login(backend, user, social_user):
    SESSION["signed_in"] = {"backend": user.backend, "uid": user.uid, "details": user.details, "response": user.response}


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        path = urlsplit(self.path).path
        try:
            if path == "/done":
                return self.answer(200, "application/json", json.dumps(SESSION.get("signed_in")))
            parts = [part for part in path.split("/") if part]
            if len(parts) == 2 and parts[0] in ("login", "complete"):
                strategy = Strategy(self)
                backend = strategy.get_backend(parts[1], redirect_uri=f"/complete/{parts[1]}/")
                result = do_auth(backend) if parts[0] == "login" else do_complete(backend, login)
                kind, value = result
                if kind == "redirect":
                    self.send_response(302)
                    self.send_header("Location", value)
                    self.end_headers()
                    return None
                return self.answer(200, "text/html", value)
            return self.answer(404, "text/plain", "not found")
        except Exception:
            return self.answer(500, "text/plain", traceback.format_exc())

    def answer(self, status, content_type, body):
        data = body.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format, *args):
        sys.stderr.write(format % args + "\n")


server = ThreadingHTTPServer(("127.0.0.1", PORT), Handler)
print("listening", flush=True)
server.serve_forever()
