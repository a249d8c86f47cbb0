#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Turn the KTAP that KUnit prints to a console log into one result line per case:
# "pass|fail kunit:SUITE.CASE". A skipped case is a failure (no case of ours may skip), and
# so is a suite whose cases do not match its "1..N" plan, or one that never ends.
# Usage: ktap.sh CONSOLE.log
sed -E 's/\r$//; s/^\[ *[0-9]+\.[0-9]+\] //' "$1" | awk '
	function end_suite() {
		if (suite != "" && plan != seen)
			print "fail kunit:" suite " planned " plan " case(s), reported " seen
	}
	/^ +# Subtest: / { end_suite(); suite = $3; plan = -1; seen = 0; next }
	suite != "" && /^ +1\.\.[0-9]+/ { p = $1; sub(/^1\.\./, "", p); plan = p + 0; next }
	suite != "" && /^ +(not )?ok [0-9]+ / {
		line = $0
		sub(/^ +/, "", line)
		notok = (line ~ /^not ok/)
		sub(/^(not )?ok [0-9]+ (- )?/, "", line)
		casename = line
		sub(/ .*/, "", casename)
		seen++
		if (notok)
			print "fail kunit:" suite "." casename
		else if (line ~ /# SKIP/) {
			reason = line
			sub(/.*# SKIP */, "", reason)
			print "fail kunit:" suite "." casename " skipped: " reason
		} else
			print "pass kunit:" suite "." casename
	}
	/^(not )?ok [0-9]+ / { end_suite(); suite = "" }
	END { if (suite != "") print "fail kunit:" suite " never finished" }
'
