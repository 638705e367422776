#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The programs users run under valgrind, run under valgrind's memcheck on
# the project's libibverbs.so.1: every run must end with zero errors
# (--error-exitcode), definite leaks included, and must have mapped the
# project's library (loader trace, tests/guest/lib/maps.sh).
#
#  - Debian's `ibv_devinfo -v`: device discovery (sysfs, RDMA netlink)
#    and every query verb.
#  - Debian's `ibv_rc_pingpong -g 1`, server on rxe0, client on rxe1,
#    both under memcheck: the built-in provider's control and data path.
#  - Our ibv_fork_demo: fork support, the child guard, a child's own
#    device, RDMA WRITE and READ through the parent's MRs around fork().
#  - Our l2_resolve test: ibv_resolve_eth_l2_from_gid(), whose rtnetlink
#    requests (link, route, neighbour) are the other netlink messages the
#    library builds (on ours only: Debian's fails its guard checks).
#  - The plug-in path: the pingpong pair again with
#    RDMAV_RXE_PROVIDER=plugin, rxe served by Debian's librxe-rdmav34.so
#    (the trace must show librxe initialised in both processes).
#
# Then the same programs on Debian's libibverbs, reported and not judged:
# lines "# debian: ..." give each run's error count (the plug-in pass has
# no Debian twin: Debian's library always uses librxe), also appended to
# the file MEMCHECK_NOTES names, if set (run-all's summary shows them).
#
# Suppressions (memcheck.supp beside this script) cover only code that is
# not the project's, each with its reason.
#
# usage: memcheck.sh PROJECT_LIB FORK_DEMO L2_RESOLVE
set -u
here=$(cd "$(dirname "$0")" && pwd -P)
# shellcheck source=tests/guest/lib/client.sh
source "$here/../lib/client.sh"
# client_run's 120 s fits a client at full speed; under valgrind on TCG
# one takes several times that, as the pingpongs' 300 s below say.
CLIENT_RUN_TIMEOUT=${CLIENT_RUN_TIMEOUT:-300}
client_init "${1:-}"
demo=${2:-}
l2=${3:-}
supp=$here/memcheck.supp

for prog in /usr/bin/valgrind /usr/bin/ibv_devinfo /usr/bin/ibv_rc_pingpong \
	"$demo" "$l2"; do
	[[ -x $prog ]] || {
		not_ok "$prog missing (valgrind, ibverbs-utils: buildlib/install-deps; or not built)"
		client_finish
	}
done

# Sets vg to the memcheck command line logging into LOGDIR, one log per
# process (%p): a fork child writes its own.
vg() { # LOGDIR
	mkdir -p "$1"
	vg=(/usr/bin/valgrind --tool=memcheck --error-exitcode=99
		--leak-check=full --show-leak-kinds=definite
		--errors-for-leak-kinds=definite --num-callers=30
		--suppressions="$supp" --log-file="$1/vg.%p")
}

# vg_errors LOGDIR: "ERRORS PROCESSES" over every process logged there,
# or nothing when one did not finish.  A fork child's log starts with its
# parent's count (its summary includes the errors made before the fork),
# so only zero is exact; that is all a check needs.  A child that exec'd
# another program (l2_resolve runs ip(8)) or was killed by its parent
# leaves a log without a summary: its error records are counted instead.
# Only the top process must have a summary.
vg_errors() {
	local f n total=0 procs=0 pids ppid
	pids=" $(for f in "$1"/vg.*; do echo -n "${f##*.} "; done)"
	for f in "$1"/vg.*; do
		[[ -e $f ]] || continue
		n=$(sed -n 's/^==[0-9]*== ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' "$f" | tail -n1)
		if [[ -z $n ]]; then
			ppid=$(sed -n 's/^==[0-9]*== Parent PID: \([0-9]*\)$/\1/p' "$f")
			[[ -n $ppid && $pids == *" $ppid "* ]] || return 0
			n=$(vg_records "$f" | grep -c .)
		fi
		total=$((total + n))
		procs=$((procs + 1))
	done
	((procs)) && echo "$total $procs"
}

# The first line of every error record in a log.
vg_records() { # LOG
	grep -E '^==[0-9]+== (Invalid|Conditional jump|Use of uninitialised|Syscall param|Mismatched|Source and destination|Argument|Jump to|Process terminating|[0-9,]+ (\(.*\) )?bytes in [0-9,]+ blocks are definitely)' "$1"
}

# What memcheck said, for a failure's context: each log after its
# command line (the preamble says nothing about the run).
vg_show() { # LOGDIR
	local f
	for f in "$1"/vg.*; do
		[[ -e $f ]] || continue
		echo "    --- memcheck log ${f##*/}:"
		sed '1,/^==[0-9]*== Command:/d; /^==[0-9]*== $/d' "$f" |
			sed 's/^/    /' | head -n 200
	done
}

note() {
	echo "# debian: $*"
	[[ -z ${MEMCHECK_NOTES:-} ]] || echo "# debian: $*" >>"$MEMCHECK_NOTES"
}

# judge WANT WHAT LOGDIR...: zero errors in every process, on the
# project's library a check, on Debian's a report.
judge() {
	local want=$1 what=$2 dir r errs=0 procs=0
	shift 2
	for dir in "$@"; do
		if ! r=$(vg_errors "$dir") || [[ -z $r ]]; then
			if [[ $want == debian ]]; then
				note "$what: memcheck did not finish"
			else
				not_ok "$what: memcheck did not finish (no ERROR SUMMARY in $dir)"
			fi
			return
		fi
		errs=$((errs + ${r% *}))
		procs=$((procs + ${r#* }))
	done
	if [[ $want == debian ]]; then
		note "$what: $errs memcheck error(s) in $procs process(es) (reported, not judged)"
		((errs == 0)) || for dir in "$@"; do vg_show "$dir" | sed 's/^ */# /' | head -n 40; done
	elif ((errs == 0)); then
		ok "$what: 0 memcheck errors in $procs process(es)"
	else
		not_ok "$what: $errs memcheck error(s) in $procs process(es)"
		for dir in "$@"; do vg_show "$dir"; done
	fi
}

# The exit status matters on ours only: 99 is memcheck's verdict, judged
# above; anything else non-zero is the program failing.
expect_exit() { # WANT TAG WHAT [RC]
	[[ $1 == project ]] || return 0
	client_expect_rc "$2" "${4:-0}" "$3"
}

# Whether every process traced for a tag initialised Debian's librxe.
librxe_served() { # TRACEDIR
	grep -qs "calling init: .*/librxe-rdmav34\.so\$" "$1"/ld.*
}

iters=50
port=18800

# One pingpong pair under memcheck.  Extra env(1) arguments follow TAG.
pingpong() { # WANT TAG [VAR=VALUE...]
	local want=$1 tag=$2 sv cv t0=$SECONDS vs vc
	shift 2
	port=$((port + 1))
	# Not under $tag.*: client_pair clears those first.
	sv=$client_tmp/vg-$tag.srv
	cv=$client_tmp/vg-$tag.cli
	vg "$sv"
	vs=("${vg[@]}")
	vg "$cv"
	vc=("${vg[@]}")
	# Under memcheck the server takes seconds to listen.
	CLIENT_PAIR_READY="ss -Hltn 'sport = :$port' | grep -q ." \
		CLIENT_PAIR_READY_WAIT=120 CLIENT_PAIR_TIMEOUT=300 \
		client_pair "$want" "$tag" \
		env "$@" "${vs[@]}" /usr/bin/ibv_rc_pingpong -d rxe0 -g 1 \
		-n "$iters" -p "$port" -- \
		env "$@" "${vc[@]}" /usr/bin/ibv_rc_pingpong -d rxe1 -g 1 \
		-n "$iters" -p "$port" 198.18.0.1
	judge "$want" "ibv_rc_pingpong rxe0<->rxe1 ($tag)" "$sv" "$cv"
	echo "# $tag: $((SECONDS - t0)) s"
}

# run_one WANT TAG WHAT RC [VAR=VALUE...] CMD...: the variables are set
# outside valgrind, which does not follow env(1)'s exec.
run_one() {
	local want=$1 tag=$2 what=$3 rc=$4 vars=() t0=$SECONDS
	shift 4
	while [[ $1 == *=* ]]; do
		vars+=("$1")
		shift
	done
	vg "$client_tmp/vg-$tag"
	client_run "$want" "$tag" env "${vars[@]}" "${vg[@]}" "$@" || return
	expect_exit "$want" "$tag" "$what" "$rc"
	judge "$want" "$what ($tag)" "$client_tmp/vg-$tag"
	echo "# $tag: $((SECONDS - t0)) s"
}

for want in "${client_wants[@]}"; do
	run_one "$want" "devinfo-$want" "ibv_devinfo -v" 0 \
		/usr/bin/ibv_devinfo -v
	pingpong "$want" "rc-$want"
	run_one "$want" "fork-demo-$want" "ibv_fork_demo" 0 \
		"$demo" -d rxe0 -g 1
	if [[ $want == project ]]; then
		run_one "$want" "l2-$want" "l2_resolve" 0 "$l2"
		pingpong "$want" "rc-plugin-$want" RDMAV_RXE_PROVIDER=plugin
		if librxe_served "$client_tmp/rc-plugin-$want.srv.ld" &&
			librxe_served "$client_tmp/rc-plugin-$want.cli.ld"; then
			ok "rc-plugin-$want: Debian's librxe-rdmav34.so was initialised in server and client"
		else
			not_ok "rc-plugin-$want: librxe-rdmav34.so was not loaded: the plug-in path did not run"
		fi
	fi
done

client_finish
