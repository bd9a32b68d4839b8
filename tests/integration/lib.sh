# shellcheck shell=bash
# The integration tests' harness: `. "$(dirname "$0")/lib.sh"` at the top of a test. One module
# per concern, under lib/:
#   core.sh        binaries, $LL_TMP, the one EXIT trap and its cleanup registry (ll_on_exit,
#                  ll_track), skip/fail/pass, require_*, free_port, start/wait_for/stop
#   assert.sh      jget, expect_json, within_pct, check_within
#   servers.sh     refserver_up (the one way to start loadlens-refserver), oneshot_httpd, nginx_up,
#                  nginx_ok_servers, nginx_counts, tls_cert, unbound_conf
#   slapd.sh       require_slapd, and slapd's stats log against the driver's figures
#   observer.sh    start_observer, h2load_observed, start_agent
#   driver.sh      driver, new_conns, load_cpu, load_driver
#   namespaces.sh  netns_create, cgroup_create
#   listener.py    the Python test servers' listener and thread per connection
# Every test sends traffic only to loopback or to namespaces it creates, bounded in count and time.
# A test never sets an EXIT trap: it registers what must be undone with ll_on_exit. docs/testing.md
# has the whole picture.

LL_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
for ll_mod in core assert servers slapd observer driver namespaces; do
	# shellcheck source=/dev/null
	. "$LL_HERE/lib/$ll_mod.sh"
done
unset ll_mod
