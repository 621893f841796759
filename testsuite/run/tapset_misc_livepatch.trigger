d=/proc/systemtap/tapset_misc_livepatch
log() { echo "$*" > $d/log; }
log "switches: notify $(cat $d/cve_notify_p) fix $(cat $d/cve_fix_p) trace $(cat $d/cve_trace_p) enabled $(cat $d/cve_enabled_p) tmpdisabled $(cat $d/cve_tmpdisabled_s)"
echo 1 > $d/act
# (the timer may have counted down once already: 1 or 0 left)
s=$(cat $d/cve_tmpdisabled_s)
log "after cve_tmpdisable(1): enabled $(cat $d/cve_enabled_p) tmpdisabled 0 or 1: $([ $s -ge 0 -a $s -le 1 ] && echo yes || echo "no: $s")"
until [ "$(cat $d/cve_enabled_p)" = 1 ]; do :; done
log "turned back on: enabled $(cat $d/cve_enabled_p) tmpdisabled $(cat $d/cve_tmpdisabled_s)"
echo 30 > $d/cve_tmpdisabled_s
s=$(cat $d/cve_tmpdisabled_s)
log "30 written to cve_tmpdisabled_s: enabled $(cat $d/cve_enabled_p) tmpdisabled 29 or 30: $([ $s -ge 29 -a $s -le 30 ] && echo yes || echo "no: $s")"
echo 1 > $d/cve_enabled_p
echo 0 > $d/cve_trace_p
log "enabled by hand, trace off: enabled $(cat $d/cve_enabled_p) trace $(cat $d/cve_trace_p)"
log "metrics:"
sort $d/__prometheus | sed 's/\(metric="runtime"}\) [0-9][0-9]*$/\1 N/' > metrics
while read -r l; do log "$l"; done < metrics
