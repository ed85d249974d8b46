#!/bin/sh
# The tcp rail between network namespaces: two namespaces joined by a veth pair (addresses that exist only
# inside them), a job whose processes make their rail sockets in different namespaces (MPCRT_NETNS; their
# PMIx connection to mpcrun stays on its loopback), MPCRT_RAILS=tcp. Checks a job across them, one with
# ranks as threads of 2 processes, and that a connection from outside the job is refused and logged.
# Needs root and iproute2; exit 77 (skipped) otherwise.   Usage: netns.sh BUILD_DIR
set -u
build=$1
bin=$build/bin
progs=$build/tests/integration
[ "$(id -u)" = 0 ] && command -v ip >/dev/null || { echo "skipped: needs root and iproute2"; exit 77; }
ns1=mpcrt-t$$-a
ns2=mpcrt-t$$-b
out=$(mktemp -d)
cleanup() {
    ip netns del "$ns1" 2>/dev/null
    ip netns del "$ns2" 2>/dev/null
    rm -rf "$out"
}
trap cleanup EXIT
ip netns add "$ns1" 2>/dev/null && ip netns add "$ns2" || { echo "skipped: cannot create network namespaces"; exit 77; }
ip link add "va$$" netns "$ns1" type veth peer name "vb$$" netns "$ns2" || { echo "skipped: no veth"; exit 77; }
ip -n "$ns1" link set lo up
ip -n "$ns2" link set lo up
ip -n "$ns1" addr add 10.213.77.1/24 dev "va$$"
ip -n "$ns2" addr add 10.213.77.2/24 dev "vb$$"
ip -n "$ns1" link set "va$$" up
ip -n "$ns2" link set "vb$$" up
# Small socket buffers, so that sends are cut short: the rail must finish a half-written packet even when
# no later packet to that peer comes (a rendezvous's last fragment, the last of a burst).
for ns in "$ns1" "$ns2"; do
    ip netns exec "$ns" sysctl -q -w net.ipv4.tcp_wmem="4096 16384 32768" net.ipv4.tcp_rmem="4096 16384 32768" ||
        echo "note: could not shrink the socket buffers in $ns"
done

fail() {
    echo "FAIL [netns]: $*"
    for f in "$out"/stdout "$out"/stderr; do [ -s "$f" ] && { echo "--- $f"; head -n 20 "$f"; }; done
    exit 1
}

# The program each process runs: the lower half of the processes in ns1, the others in ns2.
cat >"$out/in_ns" <<WRAP
#!/bin/sh
if [ "\$PMIX_RANK" -lt \$((NPROCS / 2)) ]; then ns=$ns1; else ns=$ns2; fi
MPCRT_NETNS=/run/netns/\$ns MPCRT_RAILS=tcp exec "\$@"
WRAP
chmod +x "$out/in_ns"

NPROCS=2 timeout -s KILL 120 "$bin/mpcrun" -n 2 --mode=process "$out/in_ns" "$progs/procs_check" >"$out/stdout" 2>"$out/stderr" ||
    fail "a job across two namespaces failed"
[ "$(grep -c ': ok$' "$out/stdout")" -eq 2 ] || fail "both ranks must pass their checks"
NPROCS=2 timeout -s KILL 120 "$bin/mpcrun" -n 4 -p 2 "$out/in_ns" "$progs/procs_check" >"$out/stdout" 2>"$out/stderr" ||
    fail "2 processes x 2 ranks across two namespaces failed"
[ "$(grep -c ': ok$' "$out/stdout")" -eq 4 ] || fail "all 4 ranks must pass their checks"

for i in 1 2 3; do
    NPROCS=2 timeout -s KILL 60 "$bin/mpcrun" -n 2 --mode=process "$out/in_ns" "$progs/procs_tcp_flood" 10 \
        >"$out/stdout" 2>"$out/stderr" || fail "a burst that fills the connection hung or failed (run $i)"
    grep -q '^rank 1: ok$' "$out/stdout" || fail "rank 1 must get every message of the burst whole (run $i)"
done

# A foreign connection: rank 0 (ns1) waits in a barrier while rank 1 (ns2) waits to be killed.
NPROCS=2 timeout -s KILL 60 "$bin/mpcrun" -n 2 --mode=process "$out/in_ns" "$progs/procs_fail" wait \
    >"$out/stdout" 2>"$out/stderr" &
job=$!
for _ in $(seq 200); do grep -q '^pid ' "$out/stdout" && break; sleep 0.05; done
victim=$(sed -n 's/^pid //p' "$out/stdout")
[ -n "$victim" ] || fail "rank 1 never reported its pid"
port=$(ip netns exec "$ns1" ss -ltnH 2>/dev/null | awk '{print $4}' | sed -n 's/^10\.213\.77\.1:\([0-9]*\)$/\1/p' | head -n 1)
[ -n "$port" ] || fail "rank 0 does not listen on its veth address"
ip netns exec "$ns1" python3 -c "import socket,time; s=socket.create_connection(('10.213.77.1', $port)); s.sendall(b'x' * 20); time.sleep(0.5)"
for _ in $(seq 100); do grep -q 'refused a TCP connection' "$out/stderr" && break; sleep 0.05; done
kill -9 "$victim"
wait $job
grep -q 'process 0 refused a TCP connection from 10.213.77.1' "$out/stderr" || fail "the foreign connection was not refused and logged"
echo "PASS [netns]"
