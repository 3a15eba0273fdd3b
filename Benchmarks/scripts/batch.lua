-- wrk script: POST /v1/lookup with BATCH numbers per request (one per line), rotating through
-- bodies cut from a sample file. Usage: wrk -s batch.lua URL -- SAMPLE_FILE BATCH
local bodies = {}
local j = 0

local threads = 0
function setup(thread)
  thread:set("id", threads)
  threads = threads + 1
end

function init(args)
  local numbers = {}
  for line in io.lines(args[1]) do numbers[#numbers + 1] = line end
  local size = tonumber(args[2] or "1000")
  for start = 1, #numbers - size + 1, size do
    bodies[#bodies + 1] = table.concat(numbers, "\n", start, start + size - 1) .. "\n"
  end
  j = (id * 7) % #bodies
end

function request()
  j = j % #bodies + 1
  return wrk.format("POST", "/v1/lookup", { ["Content-Type"] = "text/plain" }, bodies[j])
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT requests=%d duration_us=%d status_errors=%d socket_errors=%d p50_us=%d p90_us=%d p99_us=%d max_us=%d\n",
    summary.requests, summary.duration, e.status, e.connect + e.read + e.write + e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
