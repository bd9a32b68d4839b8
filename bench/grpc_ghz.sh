#!/bin/bash
# gRPC unary calls against a Go key/value server (bench/grpc_kv/main.go, tests/data/kv.proto's
# kv.Store on grpc-go), ghz beside loadlens-driver, side by side in one run. Not a test: it
# fetches grpc-go, protoc-gen-go, protoc-gen-go-grpc and ghz from the Go module proxy into its
# scratch folder (BENCH_GOPATH=DIR keeps them between runs) and builds them there.
#
# Each round, interleaved, ROUNDS times (the median reported):
#   ghz Put     ghz --connections 4 --concurrency 40, kv.Store/Put, a new key per call
#   ghz Get     the same for kv.Store/Get
#   ghz Put:Get two ghz at once, Put with 1 connection and concurrency 4, Get with 3 and 36
#               (ghz calls one method per run: the split is whatever the two processes get
#               of the core, printed); beside it, the 1:9 figure the solo runs imply (the time
#               of 1 Put and 9 Gets: 10 / (1/put + 9/get))
#   driver      loadlens-driver grpc://, -c 4 --streams 10, the Put:Get 1:9 --requests-file
#               (only once the HTTP/2 engine is built in; skipped with a line otherwise)
# each for DUR, the server on core 0 and the load on core 1 (taskset), the server restarted
# for each run so that its counts (printed at its exit) are that run's: they are compared with
# the tool's own (ghz's count, the driver's per-record requests).
# Also: the driver's cost to make one message (bench/grpc_msg_encode.c), ns per call.
#
# usage: bench/grpc_ghz.sh [DUR [ROUNDS]]     (default 10s 3); EXHAUST=N: every Nth call
#        RESOURCE_EXHAUSTED (the server's -exhaust-every)
#        bench/grpc_ghz.sh --server-only FILE    build the Go server alone into FILE (for other
#        benches and tests: its usage and JSON are in bench/grpc_kv/main.go)
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
SERVER_ONLY=
if [ "${1:-}" = --server-only ]; then
	SERVER_ONLY=${2:?--server-only FILE}
	shift 2
fi
DUR=${1:-10s}
ROUNDS=${2:-3}
EXHAUST=${EXHAUST:-0}
[ -n "$SERVER_ONLY" ] || bench_bins
bench_tmp grpc_ghz
KV=$here/../tests/data/kv.proto
export GOPATH=${BENCH_GOPATH:-$TMP/gopath} GOFLAGS=-mod=mod GOTOOLCHAIN=local
export PATH=/usr/local/go/bin:$GOPATH/bin:$PATH
for t in go protoc python3 taskset; do
	command -v $t >/dev/null || { echo "grpc_ghz: needs $t"; exit 1; }
done

# the server: its module in the scratch folder, kv generated from kv.proto, main.go ours
build() {
	local m=$TMP/grpc_kv
	mkdir -p "$m/kv"
	cp "$here/grpc_kv/main.go" "$m/"
	go install google.golang.org/protobuf/cmd/protoc-gen-go@latest &&
		go install google.golang.org/grpc/cmd/protoc-gen-go-grpc@latest || return 1
	[ -n "$SERVER_ONLY" ] || go install github.com/bojand/ghz/cmd/ghz@latest || return 1
	protoc -I "$(dirname "$KV")" --go_out="$m/kv" --go_opt=paths=source_relative \
		--go_opt=Mkv.proto=loadlens.bench/grpc_kv/kv --go-grpc_out="$m/kv" \
		--go-grpc_opt=paths=source_relative --go-grpc_opt=Mkv.proto=loadlens.bench/grpc_kv/kv \
		kv.proto || return 1
	(cd "$m" && go mod init loadlens.bench/grpc_kv >/dev/null 2>&1 &&
		go get google.golang.org/grpc@latest >/dev/null 2>&1 && go mod tidy >/dev/null 2>&1 &&
		go build -o "$TMP/grpc_kv_server" .) || return 1
}
if [ -n "$SERVER_ONLY" ]; then
	echo "building the server (Go module proxy) ..."
else
	echo "building the server and ghz (Go module proxy) ..."
fi
build >"$TMP/build.log" 2>&1 || { echo "grpc_ghz: build failed:"; tail -20 "$TMP/build.log"; exit 1; }
if [ -n "$SERVER_ONLY" ]; then
	cp "$TMP/grpc_kv_server" "$SERVER_ONLY" && echo "built $SERVER_ONLY" && exit 0
	exit 1
fi
echo "grpc-go $(cd "$TMP/grpc_kv" && go list -m -f '{{.Version}}' google.golang.org/grpc)," \
	"ghz $(go version -m "$(command -v ghz)" | awk '$1 == "mod" {print $3}')," \
	"$(nproc) cores, $(uname -r)"

P=$(port)
SRV_OUT=$TMP/server.json
# server_up / server_down: one server per run on core 0; server_down leaves its counts in
# SRV_OUT
server_up() {
	taskset -c 0 "$TMP/grpc_kv_server" -listen "127.0.0.1:$P" -exhaust-every "$EXHAUST" \
		>"$SRV_OUT" 2>"$TMP/server.err" &
	SRV=$!
	PIDS+=("$SRV")
	for _ in $(seq 100); do
		grep -q listening "$TMP/server.err" && return
		sleep 0.05
	done
	echo "grpc_kv did not start: $(cat "$TMP/server.err")"
	exit 1
}
server_down() {
	kill -TERM "$SRV"
	wait "$SRV" 2>/dev/null
}
jq_py() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

ghz_run() { # ghz_run OUT METHOD CONNECTIONS CONCURRENCY DATA
	taskset -c 1 ghz --insecure --proto "$KV" --call "kv.Store.$2" --connections "$3" \
		--concurrency "$4" -z "$DUR" -d "$5" --format json -o "$1" "127.0.0.1:$P" \
		2>"$1.err"
}
PUT='{"key":"k{{.RequestNumber}}","value":"dmFs"}'
GET='{"key":"k{{.RequestNumber}}"}'
printf 'weight=1 /kv.Store/Put {"key":"k{{rand:0-99999}}","value":"dmFs"}\n%s\n' \
	'weight=9 /kv.Store/Get {"key":"k{{rand:0-99999}}"}' >"$TMP/mix.txt"
driver_ok=0
server_up
"$D" "grpc://127.0.0.1:$P" --proto-file "$KV" --requests-file "$TMP/mix.txt" -n 10 -q \
	>"$TMP/probe.out" 2>&1 && driver_ok=1
server_down
[ "$driver_ok" = 1 ] || echo "driver: no gRPC calls in this build yet: $(tail -1 "$TMP/probe.out")"

declare -A RES
for r in $(seq "$ROUNDS"); do
	for what in put get mix driver; do
		[ "$what" = driver ] && [ "$driver_ok" = 0 ] && continue
		server_up
		case $what in
		put) ghz_run "$TMP/g.json" Put 4 40 "$PUT" ;;
		get) ghz_run "$TMP/g.json" Get 4 40 "$GET" ;;
		mix)
			ghz_run "$TMP/gp.json" Put 1 4 "$PUT" &
			ghz_run "$TMP/gg.json" Get 3 36 "$GET"
			wait $!
			;;
		driver)
			taskset -c 1 "$D" "grpc://127.0.0.1:$P" --proto-file "$KV" \
				--requests-file "$TMP/mix.txt" --seed 1 -c 4 --streams 10 -d "$DUR" -q \
				--json "$TMP/d.json" >/dev/null 2>"$TMP/d.err"
			;;
		esac
		server_down
		srv_calls=$(jq_py "$SRV_OUT" "sum(d['calls'].values())")
		case $what in
		put | get)
			rps=$(jq_py "$TMP/g.json" "round(d['rps'])")
			n=$(jq_py "$TMP/g.json" "d['count'], d['statusCodeDistribution']")
			;;
		mix)
			rps=$(($(jq_py "$TMP/gp.json" "round(d['rps'])") + $(jq_py "$TMP/gg.json" \
				"round(d['rps'])")))
			n="Put $(jq_py "$TMP/gp.json" "d['count'], d['statusCodeDistribution']")"
			n+=" Get $(jq_py "$TMP/gg.json" "d['count'], d['statusCodeDistribution']")"
			;;
		driver)
			rps=$(jq_py "$TMP/d.json" "round(d['throughput_rps'])")
			n=$(jq_py "$TMP/d.json" "{x['record'].split()[0]: x['requests'] + x['errors'] for x in d['records']}, d.get('grpc_status')")
			;;
		esac
		echo "round $r $what: $rps calls/s; by the tool $n; by the server $srv_calls" \
			"$(jq_py "$SRV_OUT" "d['calls'], d['codes']") mean handler ns" \
			"$(jq_py "$SRV_OUT" "{k: round(v) for k, v in d['handler_mean_ns'].items()}")"
		RES[$what]+="$rps "
	done
done

median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo
bench_table "### gRPC unary calls, kv.Store on grpc-go, 4 connections, 40 in flight, $DUR x $ROUNDS" \
	"load" "calls/s (median)" "runs"
for what in put get mix driver; do
	[ -n "${RES[$what]:-}" ] || continue
	printf '| %s | %s | %s |\n' "$what" "$(echo "${RES[$what]}" | median)" "${RES[$what]}"
done
put=$(echo "${RES[put]}" | median) get=$(echo "${RES[get]}" | median)
printf '| ghz 1:9 from the solo medians, 10 / (1/put + 9/get) | %s | |\n' \
	"$(python3 -c "print(round(10 / (1 / $put + 9 / $get)))")"
echo
echo "the driver's cost per message made (bench/grpc_msg_encode.c):"
"$BIN/grpc_msg_encode" "$(dirname "$KV")" 1000000
