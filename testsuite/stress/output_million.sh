# $1: the module. Its output goes to a file (a million lines), checked
# here; only the verdict is printed.
stapx-run -o lines "$1" 2>err
echo "status $?"
lost=$(sed -n 's/^WARNING: There were \([0-9]*\) transport failures\.$/\1/p' err)
grep -v "transport failures" err
awk -v lost="${lost:-0}" '
	/^cpu / { sent[$2] = $4; next }
	{
		if ($2 != next_seq[$1]) { gaps += $2 - next_seq[$1]; if ($2 < next_seq[$1]) disorder++ }
		next_seq[$1] = $2 + 1; got++
	}
	END {
		for (c in sent) { want += sent[c]; if (next_seq[c] != sent[c]) gaps += sent[c] - next_seq[c] }
		printf("%s lines, %s\n", want >= 1000000 ? "a million" : "too few",
		       disorder ? "out of order" : "in order per CPU")
		if (got + lost != want || gaps != lost)
			printf("%d of %d arrived, %d missing, %d reported lost\n", got, want, gaps, lost)
		else
			print "every line arrived or was reported lost"
	}' lines
