// Package drain owns `graftctl drain`: cordoning a seed, marking it for
// eviction with seed.gardener.cloud/unschedulable:NoExecute (which
// graft-descheduler acts on), following its shoots until they run elsewhere,
// checking that the descheduler is alive, and, with --dry-run, telling where
// the shared scheduling algorithm would place each shoot now.
package drain
