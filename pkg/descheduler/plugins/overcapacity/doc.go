// Package overcapacity is the OverCapacity descheduler plugin (off by
// default): on a seed whose usage exceeds status.allocatable.shoots it evicts
// just the excess, lowest value first (by purpose, then newest first; only
// purposes listed in purposeOrder move), and
// counts shoots already migrating away or being deleted as leaving, so that
// the same overload is not answered twice. Shoots annotated graft.dev/evict: "false" are never chosen.
package overcapacity
