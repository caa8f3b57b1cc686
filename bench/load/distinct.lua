-- Distinct grouped queries with citations: each request asks a different question (dimension,
-- filter and top_n vary), so the response cache does not answer it.
local dims = {"state", "technology", "energy_source_code", "prime_mover_code", "fuel_group", "status_code", "operating_year", "lifecycle"}
local lifecycles = {"operating", "planned", "retired", "canceled_or_postponed"}
local metrics = {"nameplate_mw", "net_summer_mw", "generator_count", "distinct_plant_count"}
local n = 0
local rate_delay = tonumber(os.getenv("CITEQ_DELAY_MS") or "0")

request = function()
  n = n + 1
  local body = string.format(
    '{"as_of":"2016-05-31","filters":{"lifecycle":"%s"},"group_by":["%s"],"order_by":"%s","top_n":%d}',
    lifecycles[(n % #lifecycles) + 1], dims[(n % #dims) + 1], metrics[(n % #metrics) + 1], 1 + (n * 7919 + math.random(1, 1000000)) % 100000)
  return wrk.format("POST", "/v1/power/capacity/query", {["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. os.getenv("CITEQ_API_KEY")}, body)
end

delay = function() return rate_delay end

response = function(status, headers, body)
  if status ~= 200 then print("status " .. status .. ": " .. body) end
end
