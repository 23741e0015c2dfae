# KUnit suites in test modules named on the command line:
# KUNIT_MODS="module:suite ..." (the series check: the in-tree drivers'
# suites). Each module is loaded, its suite's results kept, and removed.
. /t/lib.sh
M=/lib/modules/rpmu
# A boot may run only some built-in suites (kunit.filter_glob, which KUnit
# applies to modules too): every suite from here on.
[ ! -w /sys/module/kunit/parameters/filter_glob ] || printf '*' >/sys/module/kunit/parameters/filter_glob
for ms in $(echo "${KUNIT_MODS:-}" | tr ',' ' '); do
	mod=${ms%%:*} suite=${ms#*:}
	ok "insmod $mod.ko (suite $suite)" insmod $M/$mod.ko
	kunit_save "$suite"
	ok "rmmod $mod" rmmod "$mod"
done

# KUNIT_DOCTESTS="perf,...": the built-in doctest suite's cases from
# rust/kernel/<name>* (the series' doctests), one case each, and one that
# there are some.
if [ -n "${KUNIT_DOCTESTS:-}" ]; then
	r=/sys/kernel/debug/kunit/rust_doctests_kernel/results
	n=0
	for p in $(echo "$KUNIT_DOCTESTS" | tr ',' ' '); do
		grep -oE "(not )?ok [0-9]+ rust_doctest_kernel_${p}[a-z0-9_]*" "$r" >/tmp/doctests.txt || true
		while read -r line; do
			n=$((n + 1))
			name=${line##* }
			ok "doctest $name" sh -c "! grep -q 'not ok [0-9]* $name\$' $r"
		done </tmp/doctests.txt
	done
	ok "rust_doctests_kernel ran the doctests of $KUNIT_DOCTESTS ($n)" test "$n" -gt 0
fi
