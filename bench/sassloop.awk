# bench/sassloop.awk: the innermost loop of a kernel's SASS (cuobjdump
# -sass) with the most floating-point instructions: its instruction count
# by class, so that suite roofline can divide by the interactions of one
# trip.  A loop is a backward branch to a label or address; innermost: it
# holds no other backward branch.  Prints "class count" lines, "rsqrt"
# (the MUFU.RSQ among them: a trip's interactions where a kernel takes
# one reciprocal square root an interaction) and "total".
function cls(op) {
	sub(/^@!?U?P[0-9T]+ */, "", op)
	split(op, w, /[ .]/)
	return w[1]
}
/^[ \t]*\.L_x_[0-9]+:/ { l = $1; sub(/:$/, "", l); lab[l] = n; next }
/\/\*[0-9a-f]+\*\// {
	line = $0
	if (!match(line, /\/\*[0-9a-f]+\*\//)) next
	addr = substr(line, RSTART + 2, RLENGTH - 4)
	rest = substr(line, RSTART + RLENGTH)
	sub(/^[ \t]+/, "", rest)
	sub(/[ \t]*;.*$/, "", rest)
	if (rest == "") next
	n++
	a = addr
	sub(/^0+/, "", a)
	at["0x" (a == "" ? "0" : a)] = n
	op[n] = rest
	if (rest ~ /BRA/) {
		t = rest
		if (match(t, /\.L_x_[0-9]+/)) tgt[n] = substr(t, RSTART, RLENGTH)
		else if (match(t, /0x[0-9a-f]+/)) {
			a = substr(t, RSTART + 2, RLENGTH - 2)
			sub(/^0+/, "", a)
			tgt[n] = "0x" (a == "" ? "0" : a)
		}
	}
}
END {
	for (b in tgt) {
		s = (tgt[b] in lab) ? lab[tgt[b]] + 1 : at[tgt[b]]
		if (s == "" || s > b) continue
		lo[b] = s
	}
	best = 0
	for (bk in lo) {
		b = bk + 0
		inner = 1
		for (o in lo) if (o + 0 != b && o + 0 < b && o + 0 >= lo[bk] + 0) inner = 0
		if (!inner) continue
		fp = 0
		for (i = lo[bk] + 0; i <= b; i++) if (cls(op[i]) ~ /^(F|D|H)(FMA|MUL|ADD)|MUFU/) fp++
		if (fp > bestfp) { bestfp = fp; best = b; first = lo[bk] + 0 }
	}
	if (!best) { print "noloop 1"; exit }
	for (i = first; i <= best; i++) {
		cnt[cls(op[i])]++
		tot++
		if (op[i] ~ /MUFU\.RSQ/) rsq++
	}
	print "rsqrt", rsq + 0
	for (k in cnt) print k, cnt[k]
	print "total", tot
}
