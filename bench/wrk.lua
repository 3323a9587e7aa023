-- wrk script: every request is a different pre-signed one (fresh nonce and time, one of 64 API users),
-- read from a file the harness writes; every answer's HTTP status and envelope code are checked.
-- Arguments (after --): <requests file> <threads> <path> <body kind: none|qr|noqr|padded> <expected status> <expected code>
-- File lines: "<apiuser> <utctime> <nonce> <signature>". Thread i uses lines i, i+threads, ...

local threads = {}
local next_id = 0

function setup(thread)
  thread:set("id", next_id)
  next_id = next_id + 1
  table.insert(threads, thread)
end

function init(args)
  local file, n = args[1], tonumber(args[2])
  path, kind = args[3], args[4]
  want_status, want_code = tonumber(args[5]), '"code":' .. args[6] .. ','
  users, times, nonces, sigs = {}, {}, {}, {}
  local i, k = 0, 0
  for line in io.lines(file) do
    if i % n == id then
      local u, t, c, s = line:match("^(%d+) (%d+) (%S+) (%S+)$")
      k = k + 1
      users[k], times[k], nonces[k], sigs[k] = u, t, c, s
    end
    i = i + 1
  end
  count, pos, good, bad, wrapped, sample = k, 0, 0, 0, 0, ""
end

-- "padded": a new challenge without QR whose body carries 8 KiB more (a profile), to fill the journal's bodies.
local padding = string.rep("p", 8192)

-- Each envelope has an id of its own, as the published clients send (a time or a counter after a prefix): an id sent
-- again is a client's mistake, which the simulator notes as a finding.
local function body_for(u, t)
  if kind == "none" then return nil end
  local qr = kind == "qr" and "true" or "false"
  local extra = kind == "padded" and ',"profile":"' .. padding .. '"' or ""
  return '{"id":"load-' .. t .. '","utctime":"' .. t .. '","apiUser":"' .. u .. '","type":150,"body":{"svcUser":"user@example.com",' ..
    '"challengeType":"UserKeyAndPattern","challengeExpiry":"FiveMins","enableQRcode":' .. qr .. ',"status":"NEW"' .. extra .. '}}'
end

function request()
  pos = pos + 1
  if pos > count then pos, wrapped = 1, wrapped + 1 end
  local u, t = users[pos], times[pos]
  local headers = {
    ["Content-Type"] = "application/json",
    ["Authorization"] = "svc-hmac: apiuser=" .. u .. ",signedheaders=x-svc-utctime;x-svc-cnonce,algorithm=svc-hmac512,signature=" .. sigs[pos],
    ["x-svc-apiuser"] = u,
    ["x-svc-utctime"] = t,
    ["x-svc-cnonce"] = nonces[pos],
  }
  return wrk.format("POST", path, headers, body_for(u, t))
end

function response(status, headers, body)
  if status == want_status and body:find(want_code, 1, true) then
    good = good + 1
  else
    bad = bad + 1
    if sample == "" then sample = status .. " " .. body:sub(1, 300) end
  end
end

function done(summary, latency, requests)
  local g, b, w, s = 0, 0, 0, ""
  for _, t in ipairs(threads) do
    g = g + t:get("good")
    b = b + t:get("bad")
    w = w + t:get("wrapped")
    if s == "" then s = t:get("sample") end
  end
  local e = summary.errors
  io.write(string.format(
    'WRK {"requests":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,"max_us":%d,"good":%d,"bad":%d,"wrapped":%d,"connect":%d,"read":%d,"write":%d,"timeout":%d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency.max, g, b, w,
    e.connect, e.read, e.write, e.timeout))
  if s ~= "" then io.write("WRKSAMPLE " .. s:gsub("\n", " ") .. "\n") end
end
