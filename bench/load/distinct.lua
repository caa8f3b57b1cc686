-- Distinct grouped queries with citations: lifecycle, dimension and metric vary
-- independently, half of the requests also filter on one of the states, and top_n varies, so
-- consecutive requests ask different questions and the response cache does not answer them
-- (about 1,600 different filter and dimension pairs, each with its own citations).
local dims = {"state", "technology", "energy_source_code", "prime_mover_code", "fuel_group", "status_code", "operating_year", "lifecycle"}
local lifecycles = {"operating", "planned", "retired", "canceled_or_postponed"}
local metrics = {"nameplate_mw", "net_summer_mw", "generator_count", "distinct_plant_count"}
local states = {"AK", "AL", "AR", "AZ", "CA", "CO", "CT", "DC", "DE", "FL", "GA", "HI", "IA", "ID", "IL", "IN", "KS", "KY", "LA", "MA",
  "MD", "ME", "MI", "MN", "MO", "MS", "MT", "NC", "ND", "NE", "NH", "NJ", "NM", "NV", "NY", "OH", "OK", "OR", "PA", "RI", "SC", "SD",
  "TN", "TX", "UT", "VA", "VT", "WA", "WI", "WV", "WY"}
local n = 0
local rate_delay = tonumber(os.getenv("CITEQ_DELAY_MS") or "0")

request = function()
  n = n + 1
  local r = math.random(1, 1000000)
  local dim = dims[(r % #dims) + 1]
  local filters = string.format('"lifecycle":"%s"', lifecycles[(math.floor(r / 8) % #lifecycles) + 1])
  if dim ~= "state" and math.floor(r / 32) % 2 == 0 then
    filters = filters .. string.format(',"state":"%s"', states[(math.floor(r / 64) % #states) + 1])
  end
  local body = string.format(
    '{"as_of":"2016-05-31","filters":{%s},"group_by":["%s"],"order_by":"%s","top_n":%d}',
    filters, dim, metrics[(math.floor(r / 4096) % #metrics) + 1], 1 + (n * 7919 + r) % 100000)
  return wrk.format("POST", "/v1/power/capacity/query", {["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. os.getenv("CITEQ_API_KEY")}, body)
end

delay = function() return rate_delay end

response = function(status, headers, body)
  if status ~= 200 then print("status " .. status .. ": " .. body) end
end
