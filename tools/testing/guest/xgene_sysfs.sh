# The X-Gene PMUs' sysfs files (format, events, cpumask), printed as
# "SYSFS <pmu>/<file>=<value>" lines: the host compares the tree of our
# driver's boot with the upstream C driver's (scripts/check.sh).
D=/sys/bus/event_source/devices
pmus=$(cd $D && ls -d l3c* iob* mcb* mc[0-9]* 2>/dev/null | sort)
n=0
for p in $pmus; do
	for f in $(cd $D/$p && find format events cpumask -type f 2>/dev/null | sort); do
		echo "SYSFS $p/$f=$(cat $D/$p/$f)"
		n=$((n + 1))
	done
done >/tmp/sysfs.txt
cat /tmp/sysfs.txt
ok "sysfs tree of $(echo $pmus | wc -w) X-Gene PMUs printed ($n files)" test "$n" -gt 0
