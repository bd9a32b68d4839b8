# shellcheck shell=bash
# accept_scenario CONNECTIONS PARALLEL: the driver opens CONNECTIONS new connections (one request
# each, PARALLEL at a time) to the reference server while the observer watches its port. The three
# counts of accepted connections must be exactly equal.
accept_scenario() {
	local n=$1 c=$2 port obs srv drv
	require_bpf loadlens-refserver loadlens-observer loadlens-driver
	port=$(free_port)

	refserver_up refserver "$port" --proto tcp
	start observer "$LOADLENS_BIN/loadlens-observer" --port "$port" \
		--json "$LL_TMP/observer.json"
	wait_for observer observing 60

	timeout 300 "$LOADLENS_BIN/loadlens-driver" "tcp://127.0.0.1:$port" -c "$c" -n "$n" \
		--new-conn --json "$LL_TMP/driver.json" -q >"$LL_TMP/driver.out" 2>&1 ||
		{ st=$?; cat "$LL_TMP/driver.out"; fail "driver exited $st"; }

	stop observer
	stop refserver

	drv=$(jget "$LL_TMP/driver.json" .connections)
	local drv_req drv_err
	drv_req=$(jget "$LL_TMP/driver.json" .requests)
	srv=$(jget "$LL_TMP/refserver.json" .connections_accepted)
	obs=$(jget "$LL_TMP/observer.json" .accepted)
	echo "driver: $drv connections, $drv_req requests; refserver: $srv accepted;" \
		"observer: $obs accepted"
	[ "$drv" = "$n" ] || fail "driver opened $drv connections, asked for $n"
	[ "$drv_req" = "$n" ] || fail "driver completed $drv_req requests, asked for $n"
	[ "$srv" = "$n" ] || fail "refserver accepted $srv, expected $n"
	[ "$obs" = "$n" ] || fail "observer counted $obs accepted, expected $n"
	pass "$n connections ($c parallel): driver = refserver = observer = $n"
}
