-- wrk script of the corpus benchmark (harness/bench): sends, in turn, the
-- requests of a targets file given after "--", one "+ /path" (with the
-- secret header, read from BENCH_SECRET) or "- /path" (without it) a line,
-- and prints the figures as one JSON line when the run is done.

local requests = {}
local cursor = 0

function init(args)
  local secret = os.getenv("BENCH_SECRET")
  for line in io.lines(args[1]) do
    local mark, path = line:match("^([+-]) (/%S*)$")
    if mark then
      local headers = {}
      if mark == "+" then
        headers["X-Challenge-Secret"] = secret
      end
      requests[#requests + 1] = wrk.format("GET", path, headers)
    end
  end
  if #requests == 0 then
    error("no target in " .. tostring(args[1]))
  end
end

function request()
  cursor = cursor % #requests + 1
  return requests[cursor]
end

function done(summary, latency, _)
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"duration_us":%d,"bytes":%d,"connect_errors":%d,"read_errors":%d,"write_errors":%d,"timeouts":%d,"non_2xx_3xx":%d,"p50_us":%d,"p99_us":%d,"p999_us":%d,"max_us":%d,"mean_us":%.1f}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.timeout, e.status,
    latency:percentile(50), latency:percentile(99), latency:percentile(99.9), latency.max, latency.mean))
end
