# The X-Gene PMUs' sysfs files (format, events, cpumask), printed as
# "SYSFS <pmu>/<file>=<value>" lines: the host compares the tree of our
# driver's boot with the upstream C driver's (scripts/check.sh).
. /t/lib.sh
D=/sys/bus/event_source/devices
XDRV=${XGENE_DRIVER:-/lib/modules/rpmu/xgene_pmu.ko}
loaded=
if [ "$XDRV" != builtin ] && [ ! -d $D/l3c0 ]; then
	ok "insmod ${XDRV##*/} for the sysfs dump" insmod "$XDRV" && loaded=1
fi
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
[ -n "$loaded" ] && ok "rmmod after the sysfs dump" rmmod "$(basename "$XDRV" .ko)"
