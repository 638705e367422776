# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
#
# Helpers for the client tests in tests/guest/clients/: run a program on
# the project's libibverbs or on Debian's, capture what it printed, prove
# which library it ran on (maps.sh) and compare runs.  Each check prints
# "ok - ..." or "not ok - ..."; client_finish prints "N passed, M failed"
# and exits non-zero if anything failed.
#
#   source lib/client.sh; client_init PROJECT_LIB_FILE
#   client_run project ours /usr/bin/ibv_devinfo -v
#   client_run debian  deb  /usr/bin/ibv_devinfo -v
#   client_same ours deb "ibv_devinfo -v"
#   client_finish

_client_lib_dir=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/guest/lib/maps.sh
source "$_client_lib_dir/maps.sh"

client_passed=0
client_failed=0
client_reference=
# The libraries a script that runs a tool on both runs it on.  The
# Debian runs prove a script.  CLIENT_ONLY=WANT runs it on that library
# alone: "project" for a second pass that changes only the project's
# library (run-all's plug-in pass), "installed" (ours, installed at
# Debian's path from our package) or "debian" for tests/pkg/in-guest in a
# root without a build tree (no PROJECT_LIB_FILE then).
# shellcheck disable=SC2034 # used by the scripts that source this file
if [[ -n ${CLIENT_ONLY:-} ]]; then
	client_wants=("$CLIENT_ONLY")
else
	client_wants=(project debian)
fi

client_init() { # PROJECT_LIB_FILE
	if [[ " ${client_wants[*]} " == *" project "* ]]; then
		[[ -n ${1:-} ]] || {
			echo "usage: $0 PATH/TO/libibverbs.so.1"
			exit 2
		}
		IBV_PROJECT_LIB=$1
		export IBV_PROJECT_LIB
		if ! ibv_lib_path project >/dev/null; then
			echo "not ok - the project library $1 is missing; build it first"
			exit 1
		fi
	fi
	ibv_maps_prime
	client_tmp=$(mktemp -d "${TMPDIR:-/tmp}/ibv-client.XXXXXX")
	trap 'rm -rf "$client_tmp"' EXIT
}

ok() {
	echo "ok - $*"
	client_passed=$((client_passed + 1))
}

not_ok() {
	echo "not ok - $*"
	client_failed=$((client_failed + 1))
}

# Sets client_ldenv to the env(1) arguments that select WANT's library:
# LD_LIBRARY_PATH naming its directory (which also beats the RUNPATH of our
# own binaries), or, for the installed library, no LD_LIBRARY_PATH at all,
# so that the loader finds what a user's program finds.
_client_ld_env() { # WANT
	local dir
	client_ldenv=()
	if [[ $1 == installed ]]; then
		ibv_lib_path installed >/dev/null || return
		client_ldenv=(-u LD_LIBRARY_PATH)
		return 0
	fi
	dir=$(ibv_lib_dir "$1") || return
	client_ldenv=("LD_LIBRARY_PATH=$dir")
}

# client_run WANT TAG CMD [ARGS...]
# Runs CMD on WANT's library (project: LD_LIBRARY_PATH names the build's
# lib directory; debian: it names Debian's; installed: see
# _client_ld_env), for at most CLIENT_RUN_TIMEOUT seconds (default 120).
# Saves TAG.out, TAG.err, TAG.rc under the temp dir and checks through
# the loader's trace that CMD really ran on WANT.
client_run() {
	local want=$1 tag=$2 rc=0 limit=${CLIENT_RUN_TIMEOUT:-120} t0
	shift 2
	# Debian's is the reference only if it is Debian's 44.0-2 (maps.sh).
	if [[ $want == debian && -z $client_reference ]]; then
		if client_reference=$(ibv_verify_debian); then
			ok "$client_reference"
		else
			not_ok "$client_reference"
			client_reference=
			return 1
		fi
	fi
	_client_ld_env "$want" || {
		not_ok "$tag: no $want library"
		return 1
	}
	[[ ! -e $client_tmp/$tag.ld ]] || rm -rf "$client_tmp/$tag.ld"
	# A limit of its own, like client_pair's: status 124 (or 137) says
	# this command hung, not the test's limit.
	t0=$SECONDS
	trace_run "$client_tmp/$tag.ld" \
		timeout -k 5 "$limit" env "${client_ldenv[@]}" "$@" \
		>"$client_tmp/$tag.out" 2>"$client_tmp/$tag.err" || rc=$?
	# The command may exit 124 or 137 itself: it was killed only if it
	# also ran to the limit.
	if ((rc == 124 || rc == 137)) && ((SECONDS - t0 >= limit)); then
		echo "# '$*' ($tag) still running after $limit s: killed"
	fi
	echo "$rc" >"$client_tmp/$tag.rc"
	local verdict
	if verdict=$(trace_assert "$client_tmp/$tag.ld" "$want" \
		"'$*' ($tag)"); then
		ok "$verdict"
	else
		not_ok "$verdict"
		return 1
	fi
}

client_out() { cat "$client_tmp/$1.out"; }
client_rc() {
	local rc
	read -r rc <"$client_tmp/$1.rc" && printf '%s\n' "$rc"
}

# _client_same_file A B: the two files hold the same bytes.  Read by the
# shell itself (a process costs the guest up to a second under load);
# cmp only for what read(1) cannot hold, a NUL byte, or a missing file.
_client_same_file() {
	local a b
	if [[ -f $1 && -f $2 ]] &&
		! IFS= read -r -d '' a <"$1" && ! IFS= read -r -d '' b <"$2"; then
		[[ $a == "$b" ]]
		return
	fi
	cmp -s "$1" "$2"
}

# Show what a run printed, indented, for a failure's context.
client_show() { # TAG
	local f
	for f in out err; do
		[[ -s $client_tmp/$1.$f ]] || continue
		echo "    --- $1 std$f:"
		sed 's/^/    /' "$client_tmp/$1.$f"
	done
	echo "    --- $1 exit status $(client_rc "$1")"
}

# client_expect_rc TAG RC WHAT
client_expect_rc() {
	local rc
	rc=$(client_rc "$1")
	if [[ $rc == "$2" ]]; then
		ok "$3: exit status $rc"
	else
		not_ok "$3: exit status $rc, want $2"
		client_show "$1"
	fi
}

# client_grep TAG REGEX WHAT: an extended regex must match a stdout line.
client_grep() {
	if grep -Eq -- "$2" "$client_tmp/$1.out"; then
		ok "$3"
	else
		not_ok "$3: no line matching /$2/"
		client_show "$1"
	fi
}

# client_same TAG1 TAG2 WHAT: stdout, stderr and exit status identical.
client_same() {
	local a=$1 b=$2 what=$3 f bad=0
	for f in out err rc; do
		if ! _client_same_file "$client_tmp/$a.$f" "$client_tmp/$b.$f"; then
			bad=1
			echo "    --- difference in ${f/rc/exit status} ($a vs $b):"
			diff -u --label "$a" --label "$b" \
				"$client_tmp/$a.$f" "$client_tmp/$b.$f" |
				sed 's/^/    /'
		fi
	done
	if ((bad)); then
		not_ok "$what: $a and $b differ (diff above)"
	else
		local lines
		mapfile -t lines <"$client_tmp/$a.out"
		ok "$what: $a and $b identical (${#lines[@]} lines, exit status $(client_rc "$a"))"
	fi
}

client_finish() {
	echo "$client_passed passed, $client_failed failed"
	((client_failed == 0))
	exit
}

# The server needs a moment to listen under emulation: CLIENT_PAIR_DELAY
# seconds (default 2), or, with CLIENT_PAIR_READY set, until that shell
# command succeeds (at most CLIENT_PAIR_READY_WAIT seconds, default 30, or
# until the server exits), for a server that may start slowly (cold caches
# over 9p) and whose listening the kernel shows (rdma resource show cm_id).
_client_wait_server() { # PID
	local i
	if [[ -z ${CLIENT_PAIR_READY:-} ]]; then
		sleep "${CLIENT_PAIR_DELAY:-2}"
		return
	fi
	for ((i = 0; i < ${CLIENT_PAIR_READY_WAIT:-30} * 5; i++)); do
		! bash -c "$CLIENT_PAIR_READY" >/dev/null 2>&1 || return 0
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.2
	done
	echo "# the server was not ready after ${CLIENT_PAIR_READY_WAIT:-30} s; starting the client anyway"
}

# client_pair WANT TAG SERVER_CMD... -- CLIENT_CMD...
# A server and its client, both on WANT's library: the server in the
# background, the client once the server has had time to listen.  Each
# runs under `timeout` (CLIENT_PAIR_TIMEOUT seconds, default 120), so a
# hang fails instead of blocking the run.  Saves TAG.srv.out and
# TAG.cli.out (stdout and stderr together) and TAG.srv.rc, TAG.cli.rc, and
# checks through the loader's trace that both ran on WANT.  Returns 0 when
# both exited 0.  A server still running CLIENT_PAIR_GRACE seconds
# (default 10) after its client failed is stopped with SIGTERM.
client_pair() {
	local want=$1 tag=$2 srv=() cli=() srv_pid srv_rc=0 cli_rc=0
	local limit=${CLIENT_PAIR_TIMEOUT:-120} side verdict t0=$SECONDS
	shift 2
	while [[ $# -gt 0 && $1 != -- ]]; do
		srv+=("$1")
		shift
	done
	shift
	cli=("$@")
	_client_ld_env "$want" || {
		not_ok "$tag: no $want library"
		return 1
	}
	rm -rf "$client_tmp/$tag".*
	mkdir -p "$client_tmp/$tag.srv.ld"
	# timeout itself is the background job, so that a signal to it
	# reaches the server (trace_run's environment, written out).
	LD_DEBUG=libs LD_DEBUG_OUTPUT="$client_tmp/$tag.srv.ld/ld" \
		timeout -k 5 "$limit" env "${client_ldenv[@]}" "${srv[@]}" \
		>"$client_tmp/$tag.srv.out" 2>&1 &
	srv_pid=$!
	_client_wait_server "$srv_pid"
	trace_run "$client_tmp/$tag.cli.ld" \
		timeout -k 5 "$limit" env "${client_ldenv[@]}" "${cli[@]}" \
		>"$client_tmp/$tag.cli.out" 2>&1 || cli_rc=$?
	# A server whose client failed may wait for it forever: give it a
	# few seconds to notice, then stop it (its status shows that).
	if ((cli_rc != 0)); then
		local i
		for ((i = 0; i < ${CLIENT_PAIR_GRACE:-10}; i++)); do
			kill -0 "$srv_pid" 2>/dev/null || break
			sleep 1
		done
		kill -TERM "$srv_pid" 2>/dev/null
	fi
	wait "$srv_pid" || srv_rc=$?
	# Where a slow script's time went, should it reach its test's limit.
	echo "# $tag pair: $((SECONDS - t0)) s, server and client"
	echo "$srv_rc" >"$client_tmp/$tag.srv.rc"
	echo "$cli_rc" >"$client_tmp/$tag.cli.rc"
	for side in srv cli; do
		if verdict=$(trace_assert "$client_tmp/$tag.$side.ld" "$want" \
			"$tag $side"); then
			ok "$verdict"
		else
			not_ok "$verdict"
		fi
	done
	if ((srv_rc == 0 && cli_rc == 0)); then
		ok "$tag: server and client exit 0"
		return 0
	fi
	not_ok "$tag: server exit $srv_rc, client exit $cli_rc$( ((srv_rc == 124 || cli_rc == 124)) && echo ' (timed out)')"
	client_show_pair "$tag"
	return 1
}

# What a pair printed, indented, for a failure's context.
client_show_pair() { # TAG
	local side
	for side in srv cli; do
		echo "    --- $1 $side (exit status $(cat "$client_tmp/$1.$side.rc" 2>/dev/null)):"
		sed 's/^/    /' "$client_tmp/$1.$side.out"
	done
}

# client_pair_grep TAG SIDE REGEX WHAT: an extended regex must match a line
# that SIDE (srv or cli) of the pair printed.
client_pair_grep() {
	if grep -Eq -- "$3" "$client_tmp/$1.$2.out"; then
		ok "$4: $(grep -Em1 -- "$3" "$client_tmp/$1.$2.out" | tr -s ' \t' ' ')"
	else
		not_ok "$4: no line matching /$3/"
		client_show_pair "$1"
	fi
}
