-- wrk script of bench/serve_load.sh (run through it, not alone): each request appends the next
-- line of the queries file (SERVE_LOAD_QUERIES, one URL-encoded query per line) to the URL's path
-- and query string (which ends in `query=`), each thread starting at its own offset so threads
-- do not send the same query at once; counts non-2xx answers; at the end prints one line
-- `SERVE_LOAD {...}` with the requests, seconds, latency percentiles and error counts.
--
--   SERVE_LOAD_QUERIES=bench/serve-queries.txt wrk -t2 -c8 -d3s -s bench/serve_load.lua URL

local queries = {}
local threads = {}
local counter = 0

local function load_queries()
  local path = os.getenv("SERVE_LOAD_QUERIES")
  if not path then error("serve_load.lua: SERVE_LOAD_QUERIES is not set") end
  local f = io.open(path, "r")
  if not f then error("serve_load.lua: cannot open " .. path) end
  local list = {}
  for line in f:lines() do
    if line ~= "" then list[#list + 1] = line end
  end
  f:close()
  if #list == 0 then error("serve_load.lua: no queries in " .. path) end
  return list
end

function setup(thread)
  thread:set("id", counter)
  counter = counter + 1
  threads[#threads + 1] = thread
end

function init(args)
  queries = load_queries()
  -- Thread i starts at query (i * 97) mod N, so threads are at different queries.
  next_query = (id * 97) % #queries
  non2xx = 0
end

function request()
  next_query = next_query % #queries + 1
  return wrk.format(nil, wrk.path .. queries[next_query])
end

function response(status, headers, body)
  if status < 200 or status > 299 then
    non2xx = non2xx + 1
  end
end

function done(summary, latency, requests)
  local non = 0
  for _, t in ipairs(threads) do
    non = non + (t:get("non2xx") or 0)
  end
  local e = summary.errors
  io.write(string.format(
    'SERVE_LOAD {"requests": %d, "seconds": %.3f, "p50_ms": %.3f, "p99_ms": %.3f, ' ..
    '"mean_ms": %.3f, "max_ms": %.3f, "non2xx": %d, "connect": %d, "read": %d, "write": %d, ' ..
    '"timeout": %d, "status_gt_399": %d}\n',
    summary.requests, summary.duration / 1e6,
    latency:percentile(50) / 1e3, latency:percentile(99) / 1e3,
    latency.mean / 1e3, latency.max / 1e3, non,
    e.connect, e.read, e.write, e.timeout, e.status))
end
