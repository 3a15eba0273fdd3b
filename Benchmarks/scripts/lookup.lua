-- wrk script: one GET /v1/lookup/{number} per request, rotating through a sample file.
-- Usage: wrk -s lookup.lua URL -- SAMPLE_FILE
local numbers = {}
local i = 0

local threads = 0
function setup(thread)
  thread:set("id", threads)
  threads = threads + 1
end

function init(args)
  for line in io.lines(args[1]) do numbers[#numbers + 1] = line end
  i = (id * 7919) % #numbers  -- each thread starts somewhere else
end

function request()
  i = i % #numbers + 1
  return wrk.format("GET", "/v1/lookup/" .. numbers[i])
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT requests=%d duration_us=%d status_errors=%d socket_errors=%d p50_us=%d p90_us=%d p99_us=%d max_us=%d\n",
    summary.requests, summary.duration, e.status, e.connect + e.read + e.write + e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
