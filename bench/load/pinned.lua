-- One pinned grouped query, repeated.
local body = '{"as_of":"2016-05-31","filters":{"lifecycle":"operating"},"group_by":["state"],"order_by":"nameplate_mw","top_n":10}'
local rate_delay = tonumber(os.getenv("CITEQ_DELAY_MS") or "0")

request = function()
  return wrk.format("POST", "/v1/power/capacity/query", {["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. os.getenv("CITEQ_API_KEY")}, body)
end

delay = function() return rate_delay end

response = function(status, headers, body)
  if status ~= 200 then print("status " .. status .. ": " .. body) end
end
