# Select tests from the index ("name sets timeout topologies oom disk" a
# line).
# Variables: want (space-separated test or set names), topo (uma, numa,
# movable).  A set selects its tests that run on topo; a test named
# directly runs on any topology.  Prints "name timeout" a line, in index
# order, each test once.  Used by the guest runner and by the host (for the
# host-side timeout), so both agree on what runs.
BEGIN { nw = split(want, w, " ") }
{
	n = split($2, sets, ","); m = split($4, topos, ",")
	on = 0
	for (i = 1; i <= m; i++)
		if (topos[i] == "all" || topos[i] == topo)
			on = 1
	for (j = 1; j <= nw; j++) {
		if ($1 == w[j])
			pick = 1
		for (i = 1; i <= n; i++)
			if (sets[i] == w[j] && on)
				pick = 1
	}
	if (pick && !seen[$1]++)
		print $1, $3
	pick = 0
}
