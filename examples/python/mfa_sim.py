"""A small helper for Python tests against mfa-sim: start `npx mfa-sim`, sign requests, drive the control API.

Standard library only. Copy it into your project's tests; it is the recipe of the package's docs/signing.md
(node_modules/mfa-sim/docs/signing.md) in Python.

- `Simulator(secret)`: `npx mfa-sim` in a process of its own; `stop()` gives its exit status (3: a code required
  with `--require-coverage` was never answered over the whole run).
- `Control(url)`: the control API of a simulator started elsewhere (a parallel worker's view of it).
- `claim_api_user()`: an API user of one worker's own, isolated from the others, with its own scenario and journal.
"""
import hashlib
import hmac
import json
import os
import re
import signal
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid


class Client:
    """Signs and sends requests to the simulated API as one API user."""

    url = None
    api_user = None
    secret = None

    def signed_headers(self, utctime=None, nonce=None):
        utctime = str(utctime if utctime is not None else int(time.time() * 1000))
        nonce = nonce or str(uuid.uuid4())
        to_sign = f"x-svc-utctime: {utctime}\nx-svc-cnonce: {nonce}"
        signature = hmac.new(self.secret.encode(), to_sign.encode(), hashlib.sha512).hexdigest()
        return {
            "Authorization": f"svc-hmac: apiuser={self.api_user},signedheaders=x-svc-utctime;x-svc-cnonce,"
                             f"algorithm=svc-hmac512,signature={signature}",
            "x-svc-apiuser": self.api_user,
            "x-svc-utctime": utctime,
            "x-svc-cnonce": nonce,
            "Content-Type": "application/json",
        }

    def call(self, path, op_type, body, **headers):
        """POST an envelope to /v1/svc/<path>; returns (HTTP status, the answer envelope)."""
        sign = self.signed_headers()
        envelope = {"id": f"py-{uuid.uuid4().hex[:20]}", "utctime": sign["x-svc-utctime"], "apiUser": self.api_user, "type": op_type, "body": body}
        return _send(self.url, "POST", f"/v1/svc/{path}", envelope, {**sign, **headers})

    def new_challenge(self, user, **headers):
        return self.call("challenge", 150, {"svcUser": user, "challengeType": "UserKeyAndPattern", "enableQRcode": False}, **headers)

    def status(self, user, challenge_id):
        return self.call("status", 171, {"svcUser": user, "challengeId": challenge_id})

    def cancel(self, user, challenge_id):
        return self.call("challenge", 151, {"svcUser": user, "challengeId": challenge_id, "status": "CANCEL"})

    def time(self, **signing):
        return _send(self.url, "GET", "/v1/svc/time", None, self.signed_headers(**signing))


class Control:
    """The control API (`/__sim/`) of a running simulator."""

    def __init__(self, url, control_token=None):
        self.url = url
        self._headers = {"Content-Type": "application/json"}
        if control_token is not None:
            self._headers["x-sim-control-token"] = control_token

    def control(self, method, path, body=None):
        status, answer = _send(self.url, method, f"/__sim/{path}", body, self._headers)
        if status >= 400:
            raise RuntimeError(f"control API {method} {path}: {status} {answer}")
        return answer

    def load_scenario(self, name_or_object):
        """The active scenario for every API user not claimed: its scope starts afresh, the run goes on."""
        return self.control("POST", "scenario", _scenario(name_or_object))

    def journal(self, **query):
        return self.control("GET", "journal?" + urllib.parse.urlencode(query))

    def coverage(self, scope="run"):
        return self.control("GET", f"coverage?scope={scope}")

    def verdict(self, require=None, fail_on=None):
        """The exit status the simulator would give now (0, 3, 4 or 5), with `lines` saying why and `unmet`."""
        query = {k: v for k, v in {"require": ",".join(map(str, require or [])) or None, "failOn": fail_on}.items() if v}
        return self.control("GET", "verdict?" + urllib.parse.urlencode(query))

    def approve(self, challenge_id):
        return self.control("POST", f"challenges/{challenge_id}/approve", {})

    def claim_api_user(self, scenario=None):
        """An API user of this worker's own: its own id, secret and scenario; its requests count towards the run."""
        answer = self.control("POST", "api-users", None if scenario is None else _scenario(scenario))
        return ClaimedApiUser(self, answer)


class ClaimedApiUser(Client):
    """One parallel worker's API user: sign with it, load scenarios for it, read its journal, release it."""

    def __init__(self, control, answer):
        self._control = control
        self.url, self.api_user, self.secret = answer["url"], answer["apiUser"], answer["secret"]

    def load_scenario(self, name_or_object):
        """For this API user only: its rules, challenges, replay memory and journal start afresh."""
        return self._control.control("PUT", f"bindings/{self.api_user}", _scenario(name_or_object))

    def journal(self, **query):
        return self._control.journal(apiUser=self.api_user, **query)

    def release(self):
        return self._control.control("DELETE", f"api-users/{self.api_user}")["released"]

    # This API user's clock: its own once it moves it, else the simulator's. Moving it moves no other worker's.
    # Each answers the clock as GET /__sim/clock does: now (epoch ms), iso, frozen, offsetMs.

    def clock(self):
        return self._control.control("GET", f"api-users/{self.api_user}/clock")

    def advance(self, by):
        """Moves it by `by` (90s, 10m, -1h or ms); answers once every expiry and scripted answer due is done."""
        return self._control.control("POST", f"api-users/{self.api_user}/clock/advance", {"by": by})

    def freeze(self, at=None):
        """Stops it, at `at` (ISO 8601 or epoch ms) or where it stands; sign with its `now` when far from real time."""
        return self._control.control("POST", f"api-users/{self.api_user}/clock/freeze", {} if at is None else {"at": at})

    def unfreeze(self):
        return self._control.control("POST", f"api-users/{self.api_user}/clock/unfreeze", {})


class Simulator(Control, Client):
    """`npx mfa-sim` in a process of its own, listening on a free port of 127.0.0.1."""

    def __init__(self, secret, api_user="123456789", args=()):
        self.secret = secret
        self.api_user = api_user
        # --no: never download (mfa-sim is a devDependency of this project); `--` ends npx's own options.
        self.process = subprocess.Popen(
            ["npx", "--no", "--", "mfa-sim", "--port", "0", "--secret", secret, "--api-user", api_user, *args],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        url, self.pid = self._wait_until_ready()
        Control.__init__(self, url)
        self.output = ""

    def _wait_until_ready(self):
        url = pid = None
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and (url is None or pid is None):
            line = self.process.stdout.readline()
            if line == "":
                raise RuntimeError(f"mfa-sim exited before it was ready ({self.process.wait()})")
            if m := re.match(r"^mfa-sim listening on (http://\S+)$", line.rstrip()):
                url = m.group(1)
            if m := re.match(r"^  pid (\d+):", line):
                pid = int(m.group(1))
        if url is None or pid is None:
            raise RuntimeError("mfa-sim was not ready in 20 s")
        return url, pid

    def stop(self):
        """SIGTERM to the simulator itself (under npx it is a grandchild), then its exit status; `output` keeps what it printed."""
        os.kill(self.pid, signal.SIGTERM)
        self.output = self.process.communicate(timeout=10)[0]
        return self.process.returncode


def _scenario(name_or_object):
    # A name is looked up; a whole scenario goes under "scenario" (one whose only key is "name" would be looked up).
    return {"name": name_or_object} if isinstance(name_or_object, str) else {"scenario": name_or_object}


def _send(base, method, path, body, headers):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, _json_or_text(response.read())
    except urllib.error.HTTPError as error:
        return error.code, _json_or_text(error.read())


def _json_or_text(raw):
    text = raw.decode("utf-8", "replace")
    try:
        return json.loads(text)
    except ValueError:
        return text
