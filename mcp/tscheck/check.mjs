// Connects to a running citeq server's MCP endpoint with the official TypeScript SDK, and for
// each verb compares the tool result with the REST response for the same request: the text
// content and the serialized structured content must equal the REST body byte for byte.
// Usage: node check.mjs http://127.0.0.1:PORT
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const base = process.argv[2];
if (!base) {
  console.error("usage: node check.mjs BASE_URL");
  process.exit(2);
}

let passed = 0;
let failed = 0;
function check(name, ok, detail) {
  if (ok) {
    passed++;
    console.log(`ok   ${name}`);
  } else {
    failed++;
    console.log(`FAIL ${name}: ${detail ?? ""}`);
  }
}

async function rest(method, path, body) {
  const res = await fetch(base + path, { method, body: method === "POST" ? body : undefined });
  return { status: res.status, text: await res.text() };
}

function compare(name, result, restBody, wantError) {
  check(`${name}: isError ${wantError}`, Boolean(result.isError) === wantError, `isError=${result.isError}`);
  const text = result.content?.[0]?.text;
  check(`${name}: text content == REST body`, text === restBody, `${String(text).slice(0, 200)} vs ${restBody.slice(0, 200)}`);
  const structured = JSON.stringify(result.structuredContent);
  check(`${name}: structured content == REST body`, structured === restBody, `${structured?.slice(0, 200)} vs ${restBody.slice(0, 200)}`);
}

const client = new Client({ name: "citeq-tscheck", version: "v1" });
await client.connect(new StreamableHTTPClientTransport(new URL(base + "/mcp")));

const listed = await client.listTools();
const tools = listed.tools.map((t) => t.name);
for (const want of ["list_capabilities_v1", "describe_power_capacity_v1", "query_power_capacity_v1",
  "describe_natural_gas_prices_v1", "query_natural_gas_prices_v1", "get_source_evidence_v1", "verify_aggregate_v1"]) {
  check(`tool ${want} listed`, tools.includes(want), tools.join(","));
}
// One page, in name order; every tool read-only, idempotent, closed-world, with an output schema.
check("tools/list in one page", !listed.nextCursor, `nextCursor=${listed.nextCursor}`);
check("tools/list in name order", tools.join(",") === [...tools].sort().join(","), tools.join(","));
for (const t of listed.tools) {
  const a = t.annotations ?? {};
  check(`${t.name}: annotations read-only, idempotent, closed-world`,
    a.readOnlyHint === true && a.idempotentHint === true && a.openWorldHint === false, JSON.stringify(a));
  check(`${t.name}: output schema`, t.outputSchema?.type === "object", JSON.stringify(t.outputSchema));
}

const calls = [
  ["discover", "list_capabilities_v1", "GET", "/v1/capabilities", {}],
  ["describe", "describe_power_capacity_v1", "GET", "/v1/power/capacity/schema", { full: true }],
  ["describe prices", "describe_natural_gas_prices_v1", "GET", "/v1/natural-gas/prices/schema", { full: true }],
  ["query grouped top_n", "query_power_capacity_v1", "POST", "/v1/power/capacity/query",
    { filters: { lifecycle: "operating" }, group_by: ["state"], order_by: "nameplate_mw", top_n: 5 }],
  ["query records", "query_power_capacity_v1", "POST", "/v1/power/capacity/query",
    { filters: { state: "CA", technology: "Batteries" }, include_records: true, limit: 5 }],
  ["query prices", "query_natural_gas_prices_v1", "POST", "/v1/natural-gas/prices/query",
    { group_by: ["atom", "year"], observation_date_from: "2020", order_by: "avg_price", top_n: 3 }],
  ["query error", "query_power_capacity_v1", "POST", "/v1/power/capacity/query", { filters: { state: "ZZ" } }],
  ["query price median", "query_power_price_ercot_v1", "POST", "/v1/power/price-ercot/query",
    { as_of: "2024-12-31", group_by: ["settlement_point"], order_by: "median_price", top_n: 3 }],
  ["query queue compare_as_of", "query_power_interconnection_queue_caiso_v1", "POST", "/v1/power/interconnection-queue-caiso/query",
    { as_of: "2025-08-11", compare_as_of: "2025-01-23", group_by: ["status"] }],
];
let grouped, median;
for (const [name, tool, method, path, args] of calls) {
  const r = await rest(method, path, JSON.stringify(args));
  const result = await client.callTool({ name: tool, arguments: args });
  compare(name, result, r.text, r.status !== 200);
  if (name === "query grouped top_n") grouped = JSON.parse(r.text);
  if (name === "query price median") median = JSON.parse(r.text);
}
// compare_as_of is an argument of the queue query tools, and only of them.
{
  const props = (name) => listed.tools.find((t) => t.name === name)?.inputSchema?.properties ?? {};
  check("query_power_interconnection_queue_caiso_v1 takes compare_as_of",
    props("query_power_interconnection_queue_caiso_v1").compare_as_of?.type === "string");
  check("query_power_capacity_v1 does not take compare_as_of", props("query_power_capacity_v1").compare_as_of === undefined);
}

// Verify every citation of the grouped query over both protocols.
for (const [ref, cit] of Object.entries(grouped.citations)) {
  const r = await rest("POST", "/v1/evidence/source-row", JSON.stringify(cit.verify));
  const result = await client.callTool({ name: "get_source_evidence_v1", arguments: cit.verify });
  compare(`evidence ${ref}`, result, r.text, false);
}

// The compact description (the default) is shorter than the full one and complete: every
// filter, group_by dimension, metric, rule and codebook, with each codebook's size.
for (const [tool, path] of [["describe_power_capacity_v1", "/v1/power/capacity/schema"],
  ["describe_natural_gas_prices_v1", "/v1/natural-gas/prices/schema"]]) {
  const full = (await rest("GET", path)).text;
  const result = await client.callTool({ name: tool, arguments: {} });
  const text = result.content?.[0]?.text ?? "";
  check(`${tool} compact: shorter (${text.length} < ${full.length})`, !result.isError && text.length < full.length);
  const c = JSON.parse(text), f = JSON.parse(full);
  const names = (l) => JSON.stringify((l ?? []).map((x) => x.name ?? x));
  const same = names(c.filters) === names(f.filters) && names(c.metrics) === names(f.metrics) &&
    JSON.stringify(c.group_by) === JSON.stringify(f.group_by) && JSON.stringify(c.rules) === JSON.stringify(f.rules) &&
    JSON.stringify(Object.keys(c.codebooks)) === JSON.stringify(Object.keys(f.codebooks)) &&
    Object.entries(c.codebooks).every(([k, v]) => v.code_count === f.codebooks[k].code_count && v.codes_first.length <= 8);
  check(`${tool} compact: complete`, same && c.compact !== undefined);
}

// Invalid arguments are tool errors carrying the structured error (and the client, which
// validates structured content against each output schema, accepts them).
for (const [tool, args] of [["describe_power_capacity_v1", { full: "yes" }], ["query_power_capacity_v1", { colour: "red" }],
  ["query_natural_gas_prices_v1", { filters: { atom: "nope" } }], ["get_source_evidence_v1", { source_row: "one" }],
  ["verify_aggregate_v1", {}]]) {
  let result, err;
  try {
    result = await client.callTool({ name: tool, arguments: args });
  } catch (e) {
    err = e;
  }
  check(`${tool} ${JSON.stringify(args)}: tool error`, !err && result.isError === true &&
    typeof result.structuredContent?.error?.code === "string", err?.message ?? JSON.stringify(result).slice(0, 200));
}

// verify_aggregate_v1 answers over MCP as over REST: the grouped query's totals recomputed
// from the cited rows.
{
  const [ref, cit] = Object.entries(grouped.citations)[0];
  const args = { capability: "power.capacity", metric: "nameplate_mw", citation: cit };
  const r = await rest("POST", "/v1/evidence/aggregate", JSON.stringify(args));
  const result = await client.callTool({ name: "verify_aggregate_v1", arguments: args });
  compare(`verify_aggregate_v1 ${ref}`, result, r.text, r.status !== 200);
  check(`verify_aggregate_v1 ${ref}: equal`, result.structuredContent?.equal === true, JSON.stringify(result.structuredContent).slice(0, 300));
}
// A median recomputed from the cited cells.
{
  const [ref, cit] = Object.entries(median.citations)[0];
  const args = { capability: "power.price_ercot", metric: "median_price", citation: cit };
  const r = await rest("POST", "/v1/evidence/aggregate", JSON.stringify(args));
  const result = await client.callTool({ name: "verify_aggregate_v1", arguments: args });
  compare(`verify_aggregate_v1 median ${ref}`, result, r.text, r.status !== 200);
  check(`verify_aggregate_v1 median ${ref}: equal`, result.structuredContent?.equal === true, JSON.stringify(result.structuredContent).slice(0, 300));
}

await client.close();
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
