// Connects to a running citeq server's MCP endpoint with an official TypeScript SDK, and for
// each verb compares the tool result with the REST response for the same request: the text
// content and the serialized structured content must equal the REST body byte for byte.
// Revision 2025-11-25 is checked with @modelcontextprotocol/sdk (v1), 2026-07-28 with
// @modelcontextprotocol/client (v2: server/discover, stateless requests, subscriptions/listen).
// Usage: node check.mjs BASE_URL 2025-11-25|2026-07-28 [API_KEY]
const base = process.argv[2];
const revision = process.argv[3] ?? "2025-11-25";
const key = process.argv[4] ?? "";
if (!base) {
  console.error("usage: node check.mjs BASE_URL 2025-11-25|2026-07-28 [API_KEY]");
  process.exit(2);
}
const auth = key ? { Authorization: `Bearer ${key}` } : {};
let Client, StreamableHTTPClientTransport, clientOptions;
if (revision === "2026-07-28") {
  ({ Client, StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client"));
  clientOptions = { versionNegotiation: { mode: { pin: "2026-07-28" } } };
} else {
  ({ Client } = await import("@modelcontextprotocol/sdk/client/index.js"));
  ({ StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js"));
  clientOptions = {};
}

let passed = 0;
let failed = 0;
function check(name, ok, detail) {
  if (ok) {
    passed++;
    console.log(`ok   ${revision} ${name}`);
  } else {
    failed++;
    console.log(`FAIL ${revision} ${name}: ${detail ?? ""}`);
  }
}

async function rest(method, path, body) {
  const res = await fetch(base + path, { method, headers: auth, body: method === "POST" ? body : undefined });
  return { status: res.status, text: await res.text() };
}

function compare(name, result, restBody, wantError) {
  check(`${name}: isError ${wantError}`, Boolean(result.isError) === wantError, `isError=${result.isError}`);
  const text = result.content?.[0]?.text;
  check(`${name}: text content == REST body`, text === restBody, `${String(text).slice(0, 200)} vs ${restBody.slice(0, 200)}`);
  const structured = JSON.stringify(result.structuredContent);
  check(`${name}: structured content == REST body`, structured === restBody, `${structured?.slice(0, 200)} vs ${restBody.slice(0, 200)}`);
}

const client = new Client({ name: "citeq-tscheck", version: "v1" }, clientOptions);
await client.connect(new StreamableHTTPClientTransport(new URL(base + "/mcp"), { requestInit: { headers: auth } }));
check(`negotiated ${revision}`, (client.getNegotiatedProtocolVersion?.() ?? client.transport?.protocolVersion) === revision,
  client.getNegotiatedProtocolVersion?.());

const listed = await client.listTools();
const tools = listed.tools.map((t) => t.name);
for (const want of ["list_capabilities_v1", "describe_power_capacity_v1", "query_power_capacity_v1",
  "describe_natural_gas_prices_v1", "query_natural_gas_prices_v1", "get_source_evidence_v1", "verify_aggregate_v1",
  "describe_capability_v1", "query_capability_v1"]) {
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
  ["generic query", "query_capability_v1", "POST", "/v1/power/capacity/query",
    { capability: "power.capacity", filters: { lifecycle: "operating" }, group_by: ["state"], order_by: "nameplate_mw", top_n: 6 }],
  ["generic describe", "describe_capability_v1", "GET", "/v1/natural-gas/prices/schema", { capability: "natural_gas.prices", full: true }],
];
let grouped, median;
for (const [name, tool, method, path, args] of calls) {
  const { capability: _, ...params } = args;
  const r = await rest(method, path, JSON.stringify(tool === "query_capability_v1" ? params : args));
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

// Snapshots, schemas, values and evidence as resources; completion of their templates.
{
  const res = await client.listResources();
  const uris = res.resources.map((r) => r.uri);
  check("resources: snapshots listed", uris.includes("citeq://power.capacity/2016-05-31"), uris.slice(0, 5).join(","));
  const tmpls = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
  check("resource templates", tmpls.includes("citeq://{capability}/{as_of}/schema") && tmpls.includes("citeq://evidence/{raw_file_sha256}/{source_file}/{sheet}/{source_row}"), tmpls.join(" "));
  const schema = await client.readResource({ uri: "citeq://power.capacity/latest/schema" });
  check("schema resource == REST /schema", schema.contents[0].text === (await rest("GET", "/v1/power/capacity/schema")).text);
  const result = await client.callTool({ name: "query_power_capacity_v1", arguments: { group_by: ["lifecycle"] } });
  const link = result.content.find((c) => c.type === "resource_link");
  check("answer links evidence", link?.uri?.startsWith("citeq://evidence/"), JSON.stringify(result.content.slice(1, 2)));
  if (link) {
    const ev = await client.readResource({ uri: link.uri });
    check("evidence resource verified", JSON.parse(ev.contents[0].text).verified === true, ev.contents[0].text.slice(0, 200));
  }
  const complete = async (arg, value, args) => (await client.complete({ ref: { type: "ref/resource", uri: "citeq://{capability}/{as_of}/values/{field}/{value}" },
    argument: { name: arg, value }, context: { arguments: args } })).completion.values;
  check("complete capability", (await complete("capability", "power.cap", {})).includes("power.capacity"));
  check("complete as_of", (await complete("as_of", "20", { capability: "power.capacity" })).includes("2016-05-31"));
  check("complete codebook value", (await complete("value", "BI", { capability: "power.capacity", as_of: "latest", field: "energy_source_code" })).includes("BIT"));
}

// A comparison over the page budget pages with a cursor, over MCP as over REST.
{
  const args = { as_of: "2025-05-09", compare_as_of: "2025-01-17" };
  const first = await client.callTool({ name: "query_power_interconnection_queue_v1", arguments: args });
  const next = first.structuredContent?.summary?.next_cursor;
  check("comparison pages", typeof next === "string" && first.content[0].text.length < 200000, `${first.content[0].text.length} characters`);
  const second = await client.callTool({ name: "query_power_interconnection_queue_v1", arguments: { ...args, cursor: next } });
  const r = await rest("POST", "/v1/power/interconnection-queue/query", JSON.stringify({ ...args, cursor: next }));
  compare("second page", second, r.text, false);
}

if (revision === "2026-07-28") {
  const d = await client.discover();
  check("server/discover: both revisions", d.supportedVersions?.includes("2026-07-28") && d.supportedVersions?.includes("2025-11-25"), JSON.stringify(d.supportedVersions));
  check("server/discover: ttlMs and cacheScope", d.ttlMs > 0 && typeof d.cacheScope === "string", `${d.ttlMs} ${d.cacheScope}`);
  const sub = await client.listen({ resourcesListChanged: true, toolsListChanged: true });
  check("subscriptions/listen acknowledged", sub.honoredFilter?.resourcesListChanged === true && sub.honoredFilter?.toolsListChanged === true, JSON.stringify(sub.honoredFilter));
  await sub.close();
}

await client.close();
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
