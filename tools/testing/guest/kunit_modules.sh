# KUnit suites in test modules named on the command line:
# KUNIT_MODS="module:suite ..." (the series check: the in-tree drivers'
# suites). Each module is loaded, its suite's results kept, and removed.
. /t/lib.sh
for ms in $(echo "${KUNIT_MODS:-}" | tr ',' ' '); do
	mod=${ms%%:*} suite=${ms#*:}
	ok "insmod $mod.ko (suite $suite)" insmod $M/$mod.ko
	kunit_save "$suite"
	ok "rmmod $mod" rmmod "$mod"
done
