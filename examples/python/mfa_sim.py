"""A small helper for Python tests against mfa-sim: start `npx mfa-sim`, sign requests, drive the control API.

Standard library only. Copy it into your project's tests; it is the recipe of the package's docs/signing.md
(node_modules/mfa-sim/docs/signing.md) in Python.
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
import urllib.request
import uuid


class Simulator:
    """`npx mfa-sim` in a process of its own, listening on a free port of 127.0.0.1."""

    def __init__(self, secret, api_user="123456789", args=()):
        self.secret = secret
        self.api_user = api_user
        # --no: never download (mfa-sim is a devDependency of this project); `--` ends npx's own options.
        self.process = subprocess.Popen(
            ["npx", "--no", "--", "mfa-sim", "--port", "0", "--secret", secret, "--api-user", api_user, *args],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        self.url, self.pid = self._wait_until_ready()

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
        """SIGTERM to the simulator itself (under npx it is a grandchild), then its exit status."""
        os.kill(self.pid, signal.SIGTERM)
        status = self.process.wait(timeout=10)
        self.process.stdout.close()
        return status

    # ---- The simulated API, signed as the service requires.

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
        envelope = {"id": "py-1", "utctime": sign["x-svc-utctime"], "apiUser": self.api_user, "type": op_type, "body": body}
        return self._send("POST", f"/v1/svc/{path}", envelope, {**sign, **headers})

    def new_challenge(self, user, **headers):
        return self.call("challenge", 150, {"svcUser": user, "challengeType": "UserKeyAndPattern", "enableQRcode": False}, **headers)

    def time(self):
        return self._send("GET", "/v1/svc/time", None, self.signed_headers())

    # ---- The control API.

    def control(self, method, path, body=None):
        status, answer = self._send(method, f"/__sim/{path}", body, {"Content-Type": "application/json"})
        if status >= 400:
            raise RuntimeError(f"control API {method} {path}: {status} {answer}")
        return answer

    def load_scenario(self, name_or_object):
        body = {"name": name_or_object} if isinstance(name_or_object, str) else name_or_object
        return self.control("POST", "scenario", body)

    def journal(self, **query):
        qs = "&".join(f"{k}={v}" for k, v in query.items())
        return self.control("GET", f"journal?{qs}")

    def _send(self, method, path, body, headers):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
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
