# shellcheck shell=bash
# The servers tests run: loadlens-refserver (one way to start it: refserver_up), a one-connection
# HTTP server, and nginx; plus a self-signed certificate for TLS.

# refserver_up [OPTIONS] NAME PORT|ADDR ARGS...: loadlens-refserver listening on ADDR (a bare PORT
# means 127.0.0.1:PORT) with ARGS (--proto, --workers, --service-time...), JSON to
# $LL_TMP/NAME.json, output to $LL_TMP/NAME.{out,err}, pid in $PID_NAME; returns once it listens.
# OPTIONS, in any order:
#   --pin            on CPU 0 (load generators go to CPU 1 with load_cpu)
#   --rt             --pin at a real-time priority (SCHED_FIFO) where allowed, for tests that
#                    compare the observer's service time with the server's own: the observer's
#                    runs from the kernel's read to the transmit, the server's from after its read
#                    callback began to before its write, so a preemption by another process in
#                    between counts in the first only, and on a loaded 2-core machine such
#                    preemptions move p99s by several percent. SCHED_FIFO keeps other processes
#                    off the server's CPU (kernel.sched_rt_runtime_us still leaves them 5%);
#                    without it, a note says so.
#   --netns NS       inside network namespace NS (netns_create)
#   --cgroup DIR     in cgroup DIR from before it execs, so all of its threads are in it
#   --nofile N       with RLIMIT_NOFILE N (soft and hard)
#   --forked-after FIFO
#                    NAME is a parent shell that forks the server once a line is written to
#                    FIFO; returns at once (write FIFO, then wait_for NAME listening); stopping
#                    the shell stops the server
refserver_up() {
	local via=() name addr fifo=
	while :; do
		case $1 in
		--pin) via+=(taskset -c 0) ;;
		--rt)
			if chrt -f 10 true 2>/dev/null; then
				via+=(chrt -f 10)
			else
				echo "note: cannot run the server at SCHED_FIFO; timings may include preemptions by others"
			fi
			via+=(taskset -c 0)
			;;
		--netns) via+=(ip netns exec "$2") && shift ;;
		--cgroup) via+=(sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$2") && shift ;;
		--nofile) via+=(prlimit "--nofile=$2:$2") && shift ;;
		--forked-after)
			fifo=$2
			# the shell's stop (TERM at the test's exit) stops the server it forked too
			via+=(bash -c 'read -r _ <"$1"; shift; "$@" & c=$!
				trap "kill -TERM $c 2>/dev/null; wait $c; exit 143" TERM INT
				wait $c' sh "$2")
			shift
			;;
		*) break ;;
		esac
		shift
	done
	name=$1 addr=$2
	shift 2
	case $addr in *:*) ;; *) addr=127.0.0.1:$addr ;; esac
	start "$name" "${via[@]}" "$LOADLENS_BIN/loadlens-refserver" --listen "$addr" \
		--json "$LL_TMP/$name.json" "$@"
	[ -n "$fifo" ] || wait_for "$name" listening
}

# oneshot_httpd NAME PORT REQUESTS ANSWERS [SAVE]: oneshot_httpd.py on 127.0.0.1:PORT in the
# background, waited for until it listens: one connection, REQUESTS requests read, ANSWERS
# answered, the first request written to SAVE if given.
oneshot_httpd() {
	local name=$1
	shift
	start "$name" /usr/bin/python3 "$LL_HERE/oneshot_httpd.py" "$@"
	wait_for "$name" listening
}

# tls_cert DIR: a self-signed certificate for CN=localhost, valid one day: DIR/cert.pem, DIR/key.pem
# (DIR made if need be), and NGINX_TLS, the nginx directives that serve them.
tls_cert() {
	local dir=$1
	mkdir -p "$dir"
	NGINX_TLS="ssl_certificate $dir/cert.pem; ssl_certificate_key $dir/key.pem;"
	openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost \
		-keyout "$dir/key.pem" -out "$dir/cert.pem" >"$dir/openssl.err" 2>&1 ||
		{ cat "$dir/openssl.err"; fail "openssl could not make a self-signed certificate"; }
}

# nginx_counts PORT: "ACCEPTED REQUESTS" from nginx's stub_status at 127.0.0.1:PORT/status; this
# read is itself one connection and one request. Prints nothing if nginx does not answer.
nginx_counts() {
	local port=$1 out
	exec 3<>"/dev/tcp/127.0.0.1/$port" || return 0
	printf 'GET /status HTTP/1.0\r\nHost: localhost\r\n\r\n' >&3
	out=$(timeout 5 cat <&3)
	exec 3<&-
	printf '%s\n' "$out" | tr -d '\r' | awk 'NF == 3 && $1 ~ /^[0-9]+$/ { print $1, $3; exit }'
}

# nginx_up NAME STATUS_PORT SERVER_BLOCKS: nginx as one foreground process (no daemon, no master),
# with SERVER_BLOCKS and stub_status on 127.0.0.1:STATUS_PORT/status, every file under
# $LL_TMP/NAME, no access log; stopped at exit. Returns once the status page answers.
nginx_up() {
	local name=$1 sport=$2 servers=$3 dir=$LL_TMP/$1 i
	mkdir -p "$dir/tmp"
	cat >"$dir/nginx.conf" <<CONF
daemon off;
master_process off;
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 4096; }
http {
	access_log off;
	keepalive_requests 1000000;
	client_body_temp_path $dir/tmp/body;
	proxy_temp_path $dir/tmp/proxy;
	fastcgi_temp_path $dir/tmp/fastcgi;
	uwsgi_temp_path $dir/tmp/uwsgi;
	scgi_temp_path $dir/tmp/scgi;
	$servers
	server {
		listen 127.0.0.1:$sport;
		location = /status { stub_status; }
	}
}
CONF
	start "$name" nginx -p "$dir" -e "$dir/error.log" -c "$dir/nginx.conf"
	for i in $(seq 1 100); do
		[ -n "$(nginx_counts "$sport" 2>/dev/null)" ] && return 0
		kill -0 "$(eval echo "\$PID_$name")" 2>/dev/null || break
		sleep 0.1
	done
	cat "$dir/error.log" "$LL_TMP/$name.err" 2>/dev/null
	fail "nginx did not start (config $dir/nginx.conf)"
}

# nginx_ok_servers LISTEN LOG [LISTEN LOG]...: nginx_up's SERVER_BLOCKS for servers that answer
# every request 200 "ok\n", each on 127.0.0.1:LISTEN ("PORT", "PORT http2", "PORT ssl" or "PORT
# ssl http2": TLS with tls_cert's NGINX_TLS) and logging each request to LOG as "STATUS PROTOCOL"
# (log format rt)
nginx_ok_servers() {
	printf "\tlog_format rt '\$status \$server_protocol';\n"
	while [ $# -ge 2 ]; do
		printf '\tserver {\n\t\tlisten 127.0.0.1:%s;\n\t\taccess_log %s rt;\n' "$1" "$2"
		case " $1 " in *" ssl "*) printf '\t\t%s\n' "$NGINX_TLS" ;; esac
		printf '\t\tlocation / { return 200 "ok\\n"; }\n\t}\n'
		shift 2
	done
}

# unbound_conf FILE PORT ZONE [LINE...]: FILE, a config for unbound in the foreground on
# 127.0.0.1:PORT (UDP and TCP), 1 thread, no daemon, chroot, syslog or pid file, its directory
# FILE's, answering ZONE (static: names not listed are NXDOMAIN); each LINE is added to the server
# section as it is ("local-data: ..."), or opens a section where it ends with ':'
# ("remote-control:"). Defines nothing else; the bench scripts use it too.
unbound_conf() {
	local file=$1 port=$2 zone=$3 line
	shift 3
	{
		cat <<CONF
server:
	interface: 127.0.0.1@$port
	port: $port
	do-ip6: no
	do-daemonize: no
	username: ""
	chroot: ""
	directory: "$(dirname "$file")"
	pidfile: ""
	use-syslog: no
	logfile: ""
	num-threads: 1
	access-control: 127.0.0.0/8 allow
	local-zone: "$zone" static
CONF
		for line in "$@"; do
			case $line in *:) echo "$line" ;; *) printf '\t%s\n' "$line" ;; esac
		done
	} >"$file"
}

# slapd_db DIR LOGLEVEL [LINE...]: DIR/slapd.conf, an mdb database in DIR/db holding 10,000
# entries (uid=user0..user9999 under ou=people,dc=example,dc=com; rootdn cn=admin,dc=example,dc=com
# with password "secret"), loaded with slapadd; each LINE is added to the global section as it is
# ("sizelimit 500"). Start slapd on it with -f DIR/slapd.conf. The bench scripts use it too.
slapd_db() {
	local dir=$1 loglevel=$2 line
	shift 2
	mkdir -p "$dir/db"
	{
		cat <<CONF
include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/inetorgperson.schema
modulepath /usr/lib/ldap
moduleload back_mdb
pidfile $dir/slapd.pid
loglevel $loglevel
CONF
		for line in "$@"; do echo "$line"; done
		cat <<CONF
database mdb
maxsize 67108864
suffix "dc=example,dc=com"
rootdn "cn=admin,dc=example,dc=com"
rootpw secret
directory $dir/db
# back-mdb looks for referrals beside every filter: without an objectClass index no search
# uses the uid index (each scans the 10,000 entries: 7 ms, 250 searches/s)
index objectClass eq
index uid eq
CONF
	} >"$dir/slapd.conf"
	/usr/bin/python3 - >"$dir/data.ldif" <<'PY'
print("dn: dc=example,dc=com\nobjectClass: dcObject\nobjectClass: organization\no: example\n"
      "dc: example\n")
print("dn: ou=people,dc=example,dc=com\nobjectClass: organizationalUnit\nou: people\n")
for i in range(10000):
    print(f"dn: uid=user{i},ou=people,dc=example,dc=com\nobjectClass: inetOrgPerson\n"
          f"uid: user{i}\ncn: User {i}\nsn: {i}\n")
PY
	"$(command -v slapadd || echo /usr/sbin/slapadd)" -q -f "$dir/slapd.conf" \
		-l "$dir/data.ldif" >"$dir/slapadd.out" 2>&1
}
