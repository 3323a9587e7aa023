-- wrk script for bench/forged-flood.ts: forged new-challenge requests (no secret: the signature is zeros) naming
-- one of 1,000 API user ids the simulator does not know, each envelope carrying an id of about 7.9 KB.
-- Arguments (after --): <threads> <requests in all>. Each thread stops after its share has been answered (wrk itself
-- runs until its duration: the harness stops it once the simulator has answered them all).

local next_id = 0

function setup(thread)
  thread:set("id", next_id)
  next_id = next_id + 1
end

function init(args)
  local threads, total = tonumber(args[1]), tonumber(args[2])
  share = math.floor(total / threads) + ((id < total % threads) and 1 or 0)
  sent, answered = 0, 0
  filler = string.rep("x", 7900)
end

function request()
  local n = sent * 64 + id
  sent = sent + 1
  local user = tostring(900000000 + n % 1000)
  local body = '{"id":"' .. n .. '-' .. filler .. '","apiUser":"' .. user .. '","type":150,"body":{"svcUser":"user@example.com","challengeType":"UserKeyAndPattern"}}'
  local headers = {
    ["Content-Type"] = "application/json",
    ["x-svc-apiuser"] = user,
    ["x-svc-utctime"] = "1700000000000",
    ["x-svc-cnonce"] = "forged-" .. n,
    ["Authorization"] = "svc-hmac: apiuser=" .. user .. ",signedheaders=x-svc-utctime;x-svc-cnonce,algorithm=svc-hmac512,signature=" .. string.rep("0", 128),
  }
  return wrk.format("POST", "/v1/svc/challenge", headers, body)
end

function response(status, headers, body)
  answered = answered + 1
  if answered >= share then wrk.thread:stop() end
end

