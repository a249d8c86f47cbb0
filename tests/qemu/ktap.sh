#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Turn the KTAP that KUnit prints to a console log into one result line per case:
# "pass|fail|skip kunit:SUITE.CASE".  Usage: ktap.sh CONSOLE.log
sed -E 's/\r$//; s/^\[ *[0-9]+\.[0-9]+\] //' "$1" | awk '
	/^ +# Subtest: / { suite = $3; next }
	suite != "" && /^ +(not )?ok [0-9]+ / {
		line = $0
		sub(/^ +/, "", line)
		notok = (line ~ /^not ok/)
		sub(/^(not )?ok [0-9]+ (- )?/, "", line)
		casename = line
		sub(/ .*/, "", casename)
		verdict = notok ? "fail" : (line ~ /# SKIP/ ? "skip" : "pass")
		print verdict " kunit:" suite "." casename
	}
	/^(not )?ok [0-9]+ / { suite = "" }
'
