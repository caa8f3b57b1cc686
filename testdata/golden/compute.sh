#!/bin/sh
# Re-derives testdata/golden/eia.json from the raw EIA workbooks, without any citeq code.
#
#   testdata/golden/compute.sh [OUTPUT]        (default OUTPUT: testdata/golden/eia.json)
#
# Input:  $CITEQ_RAW/eia/... (CITEQ_RAW defaults to ../shared/data/raw relative to the repo root).
# Tools:  ssconvert (Gnumeric 1.12.55) to turn each worksheet into a tab-separated text file
#         holding raw cell values (Excel serial numbers for dates, full-precision doubles),
#         POSIX awk (mawk 1.3.4 was used) for filtering, counting and summing.
# Not run by the test suite; it documents how every golden number was obtained.
set -eu
export LC_ALL=C

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
RAW=${CITEQ_RAW:-$ROOT/../shared/data/raw}
EIA=$RAW/eia
OUT=${1:-$ROOT/testdata/golden/eia.json}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
TAB=$(printf '\t')

# One TSV per sheet: "$W/<prefix>_<sheet name>.tsv". quoting-mode=never is safe here because
# no data-row cell contains a tab or a line break (only header and footnote cells do, and
# those rows are dropped by the "column A is an integer" test below).
conv() {
  ssconvert -S -T Gnumeric_stf:stf_assistant \
    -O "separator='$TAB' quoting-mode=never format=raw eol=unix" \
    "$1" "$W/$2_%s.tsv" 2>"$W/$2.log"
}
conv "$EIA/eia860m/may_generator2016.xlsx" m860
conv "$EIA/ng_prices/RNGWHHDd.xls" hh
conv "$EIA/ng_prices/NG_PRI_SUM_DCU_NUS_M.xls" ngm

# Shared awk helpers: null test, JSON number formatting (integers as integers, other
# values with the fewest %g digits that read back as the same double), Gregorian dates
# to Excel 1900-system serial numbers.
cat >"$W/lib.awk" <<'EOF'
function isnull(v) { return v == "" || v == " " || v == "." }
function isnum(v) { return v ~ /^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/ }
function num(x,   p, s) {
  if (x == int(x) && x < 9007199254740992 && x > -9007199254740992) return sprintf("%d", x)
  for (p = 1; p <= 17; p++) { s = sprintf("%." p "g", x); if (s + 0 == x) return s }
  return sprintf("%.17g", x)
}
# days since 1970-01-01 (proleptic Gregorian); Excel serial = that + 25569
function days(y, m, d,   mp) {
  if (m <= 2) y--
  mp = (m + 9) % 12
  return 365 * y + int(y / 4) - int(y / 100) + int(y / 400) + int((153 * mp + 2) / 5) + d - 719469
}
function serial(ymd,   a) { split(ymd, a, "-"); return days(a[1] + 0, a[2] + 0, a[3] + 0) + 25569 }
# Excel serial -> YYYY-MM-DD (civil_from_days)
function ymd(s,   z, era, doe, yoe, y, doy, mp, d, m) {
  z = s - 25569 + 719468
  era = int(z / 146097); doe = z - era * 146097
  yoe = int((doe - int(doe / 1460) + int(doe / 36524) - int(doe / 146096)) / 365)
  y = yoe + era * 400; doy = doe - (365 * yoe + int(yoe / 4) - int(yoe / 100))
  mp = int((5 * doy + 2) / 153); d = doy - int((153 * mp + 2) / 5) + 1
  m = mp < 10 ? mp + 3 : mp - 9
  if (m <= 2) y++
  return sprintf("%04d-%02d-%02d", y, m, d)
}
EOF

# ---------------------------------------------------------------- EIA-860M May 2016
# Columns: A Entity ID, C Plant ID, F Plant State, H Nameplate MW, I Net Summer MW,
# J Technology, K Energy Source Code, L Prime Mover Code. Data row = column A is an integer.
cat >"$W/m860.awk" <<'EOF'
function acc(k) {
  cnt[k]++
  if (!isnull(h)) { hs[k] += h; hn[k]++ }
  if (!isnull(s)) { ss[k] += s; sn[k]++ }
  if (isnull(pid)) np[k]++
  else if (!((k, pid) in seen)) { seen[k, pid] = 1; dp[k]++ }
}
function totals(k,   o) {
  o = ""
  if (hn[k] > 0) o = o "\"nameplate_mw\": " num(hs[k]) ", "
  if (sn[k] > 0) o = o "\"net_summer_mw\": " num(ss[k]) ", "
  o = o "\"generator_count\": " (cnt[k] + 0) ", \"distinct_plant_count\": " (dp[k] + 0)
  return "\"totals\": {" o "}, \"notes\": {\"plant_id_not_published\": " (np[k] + 0) "}"
}
function kase(name, filters, k) {
  printf "{\"name\": \"%s\", \"capability\": \"power.capacity\", \"as_of\": \"2016-05-31\", \"params\": {\"filters\": {\"lifecycle\": \"%s\"%s}}, %s}\n", name, lc, filters, totals(k)
}
function groupmap(metric,   i, j, t, n, key, o, v) {
  n = 0
  for (key in cnt) if (key ~ /^state:/) { n++; ks[n] = substr(key, 7) }
  for (i = 2; i <= n; i++) { t = ks[i]; for (j = i - 1; j >= 1 && ks[j] > t; j--) ks[j + 1] = ks[j]; ks[j + 1] = t }
  o = ""
  for (i = 1; i <= n; i++) {
    key = "state:" ks[i]
    if (metric == "nameplate_mw") { if (hn[key] == 0) continue; v = num(hs[key]) }
    else if (metric == "net_summer_mw") { if (sn[key] == 0) continue; v = num(ss[key]) }
    else v = cnt[key] + 0
    o = o (o == "" ? "" : ", ") "\"" ks[i] "\": " v
  }
  return "\"" metric "\": {" o "}"
}
$1 ~ /^[0-9]+$/ {
  pid = $3; h = $8; s = $9
  if (!isnull(pid) && pid !~ /^[0-9]+$/) { print "bad plant id: " $0 > "/dev/stderr"; exit 2 }
  if (!isnull(h) && !isnum(h)) { print "bad nameplate: " $0 > "/dev/stderr"; exit 2 }
  if (!isnull(s) && !isnum(s)) { print "bad net summer: " $0 > "/dev/stderr"; exit 2 }
  acc("all")
  if ($10 == "Batteries") acc("tech")
  if ($12 == "BA") acc("pm")
  if ($11 == "MWH") acc("esc")
  if (lc == "operating") acc("state:" $6)
}
END {
  kase(lc " totals", "", "all")
  if (lc == "operating") {
    printf "{\"name\": \"operating by state\", \"capability\": \"power.capacity\", \"as_of\": \"2016-05-31\", \"params\": {\"filters\": {\"lifecycle\": \"operating\"}, \"group_by\": [\"state\"]}, \"groups\": {%s, %s, %s}}\n", groupmap("nameplate_mw"), groupmap("net_summer_mw"), groupmap("generator_count")
    kase("operating batteries", ", \"technology\": \"Batteries\"", "tech")
    kase("operating prime mover BA", ", \"prime_mover_code\": \"BA\"", "pm")
    kase("operating energy source MWH", ", \"energy_source_code\": \"MWH\"", "esc")
  } else {
    kase(lc " batteries", ", \"technology\": \"Batteries\"", "tech")
  }
}
EOF

: >"$W/cases"
for pair in "Operating:operating" "Planned:planned" "Retired:retired" "Canceled or Postponed:canceled_or_postponed"; do
  sheet=${pair%%:*}; lc=${pair#*:}
  awk -F "$TAB" -v lc="$lc" -f "$W/lib.awk" -f "$W/m860.awk" "$W/m860_$sheet.tsv" >>"$W/cases"
done

# ---------------------------------------------------------------- natural gas prices
# stats FILE COLUMN FIRST_DATA_ROW NAME ATOM AS_OF FROM TO MONTHLY
# Observation date = column A (Excel serial). For monthly series (dated the 15th) the
# observation date is the first of that month. Empty value cells are null (skipped).
cat >"$W/price.awk" <<'EOF'
NR >= first {
  obs = ymd($1)
  if (monthly) { if (substr(obs, 9) != "15") { print "monthly date not on the 15th: " obs > "/dev/stderr"; exit 2 }; obs = substr(obs, 1, 8) "01" }
  if (from != "" && obs < from) next
  if (to != "" && obs > to) next
  rows++
  v = $col
  if (isnull(v)) next
  if (!isnum(v)) { print "bad price: " $0 > "/dev/stderr"; exit 2 }
  v += 0; n++; sum += v
  if (n == 1 || v < mn) mn = v
  if (n == 1 || v > mx) mx = v
}
END {
  p = "\"filters\": {\"atom\": \"" atom "\"}"
  if (from != "") p = p ", \"observation_date_from\": \"" from "\""
  if (to != "") p = p ", \"observation_date_to\": \"" to "\""
  printf "{\"name\": \"%s\", \"capability\": \"natural_gas.prices\", \"as_of\": \"%s\", \"params\": {%s}, \"totals\": {\"avg_price\": %s, \"min_price\": %s, \"max_price\": %s, \"observation_count\": %d}}\n", name, asof, p, num(sum / n), num(mn), num(mx), n
  printf "%s: %d dated rows, %d non-null\n", name, rows, n > "/dev/stderr"
}
EOF
stats() {
  awk -F "$TAB" -v col="$2" -v first="$3" -v name="$4" -v atom="$5" -v asof="$6" -v from="$7" -v to="$8" -v monthly="$9" \
    -f "$W/lib.awk" -f "$W/price.awk" "$1" >>"$W/cases"
}
HH="$W/hh_Data 1.tsv"
stats "$HH" 2 4 "henry hub all" henry_hub_daily_spot 2024-07-10 "" "" 0
stats "$HH" 2 4 "henry hub 2020" henry_hub_daily_spot 2024-07-10 2020-01-01 2020-12-31 0
stats "$HH" 2 4 "henry hub 2008" henry_hub_daily_spot 2024-07-10 2008-01-01 2008-12-31 0
stats "$HH" 2 4 "henry hub 2024 to 07-09" henry_hub_daily_spot 2024-07-10 2024-01-01 2024-07-09 0

NGM="$W/ngm_Data 1.tsv"
# locate the N3045US3 column from the Sourcekey row (row 2)
COL=$(awk -F "$TAB" 'NR == 2 { for (i = 1; i <= NF; i++) if ($i == "N3045US3") print i; exit }' "$NGM")
# Each workbook is a document of natural_gas.prices, and the snapshot of its release date
# (2022-04-29) holds this workbook alone; later snapshots serve N3045US3 from the newest
# release that publishes each month (compute_docsets.py derives those).
stats "$NGM" "$COL" 4 "us electric power monthly all" us_electric_power_monthly 2022-04-29 "" "" 1
stats "$NGM" "$COL" 4 "us electric power monthly 2021" us_electric_power_monthly 2022-04-29 2021-01-01 2021-12-01 1
stats "$NGM" "$COL" 4 "us electric power monthly 2010s" us_electric_power_monthly 2022-04-29 2010-01-01 2019-12-01 1

# Cross-check of the daily CSV export against the xls (stderr only): dates in both, value mismatches.
cat >"$W/hhcsv.awk" <<'EOF'
FNR == NR { if (FNR >= 4) x[ymd($1)] = isnull($2) ? "null" : num($2 + 0); next }
FNR > 5 {
  sub(/\r$/, ""); split($1, d, "/"); k = sprintf("%04d-%02d-%02d", d[3], d[1], d[2]); c++
  if (!(k in x)) { miss++; next }
  both++; seen[k] = 1
  if (x[k] != (isnull($2) ? "null" : num($2 + 0))) { diff++; print "  differs: " k " xls=" x[k] " csv=" $2 > "/dev/stderr" }
}
END {
  for (k in x) if (!(k in seen)) only = only " " k
  printf "henry hub csv: %d rows, %d dates also in xls, %d not in xls, %d value mismatches; only in xls:%s\n", c, both, miss, diff, only > "/dev/stderr"
}
EOF
awk -F "$TAB" -f "$W/lib.awk" -f "$W/hhcsv.awk" "$HH" FS=, "$EIA/ng_prices/Henry_Hub_Natural_Gas_Spot_Price_daily.csv"

# ---------------------------------------------------------------- assemble
awk 'BEGIN { print "[" } { printf "%s%s", (NR > 1 ? ",\n " : " "), $0 } END { print "\n]" }' "$W/cases" >"$OUT"
echo "wrote $OUT ($(wc -l <"$W/cases") cases)" >&2
