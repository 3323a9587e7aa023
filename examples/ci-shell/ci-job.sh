#!/usr/bin/env bash
# A CI job as a shell script: start mfa-sim in the background, wait until it is ready, run the client's
# integration check against it, stop it, and let its exit status say whether every required code was met.
set -euo pipefail
cd "$(dirname "$0")"

log=$(mktemp)
coverage=$(mktemp)
trap 'rm -f "$log" "$coverage"; [ -n "${sim_pid:-}" ] && kill -TERM "$sim_pid" 2>/dev/null || true' EXIT

# --no: never download; the package is installed in this project. `--` ends npx's own options.
npx --no -- mfa-sim --port 0 --secret ci-secret --seed 1 \
  --coverage-out "$coverage" --require-coverage 2025,2028,15000,-4037 >"$log" 2>&1 &
npx_pid=$!

# Ready when the first line names the URL. The simulator's own PID is on the next line: under npx it is a
# grandchild of $npx_pid, and SIGTERM must reach it (npm does not pass it through `sh -c`).
for _ in $(seq 1 100); do
  url=$(sed -n 's/^mfa-sim listening on //p' "$log")
  sim_pid=$(sed -n 's/^  pid \([0-9]*\):.*/\1/p' "$log")
  [ -n "$url" ] && [ -n "$sim_pid" ] && break
  kill -0 "$npx_pid" 2>/dev/null || { echo "mfa-sim did not start:"; cat "$log"; exit 1; }
  sleep 0.1
done
[ -n "$url" ] || { echo "mfa-sim was not ready in 10 s:"; cat "$log"; exit 1; }
echo "mfa-sim ready at $url (pid $sim_pid)"

MFA_SIM_URL="$url" MFA_SIM_SECRET=ci-secret node client.mjs

kill -TERM "$sim_pid"
set +e
wait "$npx_pid"
status=$?
set -e
sim_pid=
echo "--- simulator log"
cat "$log"
echo "--- coverage"
node -e 'const r = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8")); console.log(`met ${r.met.join(", ")}; required not met: ${r.unmet.join(", ") || "none"}`)' "$coverage"
if [ "$status" -ne 0 ]; then
  echo "mfa-sim exited $status (3: a required code was never met)"
  exit "$status"
fi
echo "ok: mfa-sim stopped cleanly and every required code was met"
