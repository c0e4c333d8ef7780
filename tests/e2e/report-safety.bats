#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# report-safety.bats: pfshim report on hostile input. Strings from a report
# are shown, never acted on, in every view; a directory walk follows no link,
# blocks on no FIFO and reads no other user's file unless asked; sums never
# wrap; a stdout that cannot be written is an error.

load helpers

PFSHIM="$BUILD/pfshim"

setup() {
	[ -x "$PFSHIM" ] || skip "build/pfshim is not built (libjansson-dev)"
	cd "$BATS_TEST_TMPDIR"
}

# hostile N: a report of pid N whose program name sets the terminal's title and
# rings its bell, whose event name is a spreadsheet formula, whose unit is a script.
hostile() {
	printf '%s\n' '{"schema":"pfshim.report","version":4,"program":"ev\u001b]0;pwned\u0007il\u009b2J","pid":'"$1"',"hostname":"h","start_ns":'"$1"',"reason":"exit","events":[{"name":"=cmd|'"'"' /C calc'"'"'!A0","value":9223372036854775807,"unit":"<script>document.title=1</script>","status":"counted"}]}'
}

@test "control bytes from a report reach no terminal: text, CSV, JSON and the HTML page show them" {
	{ hostile 5; hostile 6; } >r.jsonl
	for view in "" --csv --json "--html -"; do
		# shellcheck disable=SC2086
		"$PFSHIM" report $view r.jsonl >out 2>err
		echo "view '$view': $(head -c 300 out | od -c | head -3)"
		[ "$(tr -d '\n\t' <out | LC_ALL=C grep -c '[[:cntrl:]]')" -eq 0 ]
		! LC_ALL=C grep -q $'\xc2\x9b' out || false
	done
	"$PFSHIM" report r.jsonl | grep -qF 'ev\x1b]0;pwned\x07il\x9b2J'
}

# The runner's summary names the command as the user typed it: its bytes are the command's
# arguments, any a file name or a downloaded string held. Shown, never sent to the terminal.
@test "control bytes in pfshim run's command line reach no terminal: its summary shows them" {
	run -0 --separate-stderr "$PFSHIM" run -- true "$(printf 'x\033]0;pwned\007y\302\2332J')"
	echo "$stderr" | od -c | head -5
	[ "$(tr -d '\n\t' <<<"$stderr" | LC_ALL=C grep -c '[[:cntrl:]]')" -eq 0 ]
	! LC_ALL=C grep -q $'\xc2\x9b' <<<"$stderr" || false
	grep -qF "for 'true x\x1b]0;pwned\x07y\x9b2J'" <<<"$stderr"
	run -0 --separate-stderr "$PFSHIM" run -r 2 -- true "$(printf 'x\033]0;pwned\007y')"
	[ "$(tr -d '\n\t' <<<"$stderr" | LC_ALL=C grep -c '[[:cntrl:]]')" -eq 0 ]
}

@test "a CSV cell a spreadsheet would run as a formula starts with a quote" {
	hostile 5 >r.jsonl
	run -0 "$PFSHIM" report --csv r.jsonl
	[[ "$output" == *",\"'=cmd|' /C calc'!A0\","* ]] || [[ "$output" == *",'=cmd|' /C calc'!A0,"* ]]
	! grep -q ',=cmd' <<<"$output" || false
}

@test "a unit holding markup is text on the HTML page, in the charts' titles too" {
	{ hostile 5; hostile 6; } >r.jsonl
	"$PFSHIM" report --html page.html r.jsonl >/dev/null
	! grep -q '<script>' page.html || false
	grep -q '&lt;script&gt;document.title=1&lt;/script&gt;' page.html
}

@test "two counts of 2^63-1 saturate at 2^63-1: no wrap, no negative number" {
	{ hostile 5; hostile 6; } >r.jsonl
	run -0 "$PFSHIM" report --json r.jsonl
	[[ "$output" == *'"value":9223372036854775807,'* ]]
	[[ "$output" != *'"value":-'* ]]
	run -0 "$PFSHIM" report r.jsonl
	[[ "$output" == *"9,223,372,036,854,775,807"* ]]
}

@test "a directory walk: links not followed, a FIFO not opened, other users' files only when asked" {
	mkdir d
	hostile 5 >d/a.json
	ln -s . d/loop1
	ln -s .. d/loop2
	echo 'secret line' >secret && chmod 600 secret
	ln -s "$PWD/secret" d/b.json
	mkfifo d/c.json
	hostile 7 >d/d.json
	if [ "$(id -u)" -eq 0 ]; then chown 65534 d/d.json; fi
	run -0 --separate-stderr timeout 20 "$PFSHIM" report --json d
	echo "$stderr"
	[ "$(grep -c 'a symbolic link in a directory: not followed' <<<"$stderr")" -eq 3 ]
	[ "$(grep -c 'c.json: not a regular file' <<<"$stderr")" -eq 1 ]
	[[ "$stderr" != *"secret line"* ]] && [[ "$output" != *"secret line"* ]]
	[ "$(id -u)" -eq 0 ] || skip "the other user's file needs root to make"
	[ "$(grep -c 'd.json: owned by another user' <<<"$stderr")" -eq 1 ]
	[ "$(jq .reports <<<"$output")" -eq 1 ]
	run -0 --separate-stderr "$PFSHIM" report --any-owner --json d
	[ "$(jq .reports <<<"$output")" -eq 2 ]
	# a file named on the command line is read whoever owns it
	run -0 "$PFSHIM" report --json d/d.json
	[ "$(jq .reports <<<"$output")" -eq 1 ]
}

@test "stdout that cannot be written: pfshim report and pfshim list exit 2 and say why" {
	hostile 5 >r.jsonl
	run -2 --separate-stderr sh -c "'$PFSHIM' report r.jsonl >/dev/full"
	[[ "$stderr" == *"pfshim report: stdout: No space left on device"* ]]
	run -2 --separate-stderr sh -c "'$PFSHIM' list >/dev/full"
	[[ "$stderr" == *"pfshim list: stdout: No space left on device"* ]]
}
