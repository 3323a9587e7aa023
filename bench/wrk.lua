-- wrk script of the benchmark: every request a different pre-signed one, read from a file the harness writes (lines
-- "<apiuser> <utctime> <nonce> <signature>"; thread i takes lines i, i+threads, ...); every answer's HTTP status and
-- envelope code are checked. Arguments (after --): <file> <threads> <path> <body: none|challenge|forged> <status> <code>

local threads = {}
local next_id = 0
local forged_id = string.rep("x", 7900)

function setup(thread)
  thread:set("id", next_id)
  next_id = next_id + 1
  table.insert(threads, thread)
end

function init(args)
  local n = tonumber(args[2])
  path, kind, want_status, want_code = args[3], args[4], tonumber(args[5]), '"code":' .. args[6] .. ','
  lines = {}
  local i = 0
  for line in io.lines(args[1]) do
    if i % n == id then lines[#lines + 1] = line end
    i = i + 1
  end
  pos, bad, wrapped, sample = 0, 0, 0, ""
end

function request()
  pos = pos + 1
  -- Past the end the file starts again: a replay, which a server with a replay memory refuses.
  if pos > #lines then pos, wrapped = 1, wrapped + 1 end
  local u, t, nonce, sig = lines[pos]:match("^(%d+) (%d+) (%S+) (%S+)$")
  local body = nil
  if kind ~= "none" then
    -- Each envelope has an id of its own, as the published clients send (at most 25 characters); a forger's is 7.9 KB.
    local envelope_id = kind == "forged" and forged_id .. t or "c" .. u:sub(-2) .. "-" .. t
    body = '{"id":"' .. envelope_id .. '","utctime":"' .. t .. '","apiUser":"' .. u .. '","type":150,"body":' ..
      '{"svcUser":"user@example.com","challengeType":"UserKeyAndPattern","challengeExpiry":"FiveMins",' ..
      '"enableQRcode":false,"status":"NEW"}}'
  end
  return wrk.format("POST", path, {
    ["Content-Type"] = "application/json",
    ["Authorization"] = "svc-hmac: apiuser=" .. u ..
      ",signedheaders=x-svc-utctime;x-svc-cnonce,algorithm=svc-hmac512,signature=" .. sig,
    ["x-svc-apiuser"] = u,
    ["x-svc-utctime"] = t,
    ["x-svc-cnonce"] = nonce,
  }, body)
end

function response(status, headers, body)
  if status ~= want_status or not body:find(want_code, 1, true) then
    bad = bad + 1
    if sample == "" then sample = status .. " " .. body:sub(1, 300):gsub("\n", " ") end
  end
end

function done(summary, latency, requests)
  local bad, wrapped, sample = 0, 0, ""
  for _, t in ipairs(threads) do
    bad, wrapped = bad + t:get("bad"), wrapped + t:get("wrapped")
    if sample == "" then sample = t:get("sample") end
  end
  local e = summary.errors
  io.write(string.format('WRK {"requests":%d,"us":%d,"bad":%d,"wrapped":%d,"errors":%d}\n', summary.requests,
    summary.duration, bad, wrapped, e.connect + e.read + e.write + e.timeout))
  if sample ~= "" then io.write("WRKSAMPLE " .. sample .. "\n") end
end
