-- Distinct cited queries across the whole catalogue: each request is a line of the mix file
-- (CITEQ_MIX, written by mix.py from the server's own schemas: every served capability and
-- snapshot, each dimension, ordered by each metric in turn, unfiltered and filtered to
-- listed values, one line in eight with 100 records), drawn at random, with a top_n that
-- varies, so the response cache does not answer it.
local lines = {}
for line in io.lines(os.getenv("CITEQ_MIX")) do
  local path, body = line:match("^([^\t]+)\t(.*)$")
  if path then lines[#lines + 1] = {path, body} end
end
local n = 0
local rate_delay = tonumber(os.getenv("CITEQ_DELAY_MS") or "0")
local headers = {["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. os.getenv("CITEQ_API_KEY")}

request = function()
  n = n + 1
  local r = math.random(1, 1000000000)
  local q = lines[(r % #lines) + 1]
  local body = string.format('%s,"top_n":%d}', q[2], 1 + (n * 7919 + r) % 100000)
  return wrk.format("POST", q[1], headers, body)
end

delay = function() return rate_delay end

response = function(status, headers, body)
  if status ~= 200 then print("status " .. status .. ": " .. body) end
end
