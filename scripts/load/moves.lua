-- wrk script for scripts/load-test.sh: every request asks `tafl serve` for a level's move in
-- one of a few Brandubh games, level and game drawn at random; counts answers by status.
-- Clients behave as a game page would: after a 503 a connection waits the Retry-After it was
-- given before its next request (wrk calls response() then delay() for the same connection).
local games = {
  '[]',
  '["d1-b1"]',
  '["d1-b1","d3-b3"]',
  '["a4-a2","d5-f5","g4-g6"]',
  '["d2-f2","c4-c6","d7-b7","e4-e2"]',
}
local levels = LEVELS or {1, 2, 3, 4, 5}

wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"

-- Globals, so that done() can read each thread's with thread:get.
counts = {}
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

local backoff = true

function init(args)
  math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16) % 100000)
  counts = {}
  -- `-- no-backoff` after the URL: clients that send again at once after a 503.
  backoff = args[1] ~= "no-backoff"
end

function request()
  local body = string.format('{"rules":"brandubh","moves":%s,"level":%d}',
    games[math.random(#games)], levels[math.random(#levels)])
  return wrk.format(nil, "/api/move", nil, body)
end

local wait_ms = 0

function response(status, headers, body)
  counts[status] = (counts[status] or 0) + 1
  wait_ms = 0
  if status == 503 and backoff then
    wait_ms = 1000 * (tonumber(headers["Retry-After"] or headers["retry-after"] or "1") or 1)
  end
end

function delay()
  return wait_ms
end

function done_thread_counts(thread)
  return thread:get("counts") or {}
end

function done(summary, latency, requests)
  local total = {}
  for _, t in ipairs(threads) do
    for status, n in pairs(done_thread_counts(t)) do
      total[status] = (total[status] or 0) + n
    end
  end
  local all = 0
  for _, n in pairs(total) do all = all + n end
  io.write("answers by status:")
  for status, n in pairs(total) do
    io.write(string.format(" %d: %d (%.1f%%)", status, n, 100 * n / math.max(all, 1)))
  end
  io.write("\n")
  io.write(string.format("answered moves (200) per second: %.1f\n", (total[200] or 0) / (summary.duration / 1e6)))
  io.write(string.format("p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms\n",
    latency:percentile(50) / 1000, latency:percentile(90) / 1000,
    latency:percentile(99) / 1000, latency.max / 1000))
end
